//go:build unix

package sys

import "golang.org/x/sys/unix"

// KeyByKey makes the terminal on fd deliver every key as it is typed (no
// canonical mode: no line editing, no end-of-file on Ctrl-D; a read
// returns as soon as one byte is there), keeping echo and signals as they
// are, and returns the function that restores the old settings.
func KeyByKey(fd int) (restore func(), err error) {
	old, err := GetTermios(fd)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Lflag &^= unix.ICANON
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := SetTermios(fd, &t); err != nil {
		return nil, err
	}
	return func() { SetTermios(fd, old) }, nil
}
