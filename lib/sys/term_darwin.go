package sys

import "golang.org/x/sys/unix"

// GetTermios reads the terminal settings of fd. Darwin: ioctl TIOCGETA.
func GetTermios(fd int) (*unix.Termios, error) { return unix.IoctlGetTermios(fd, unix.TIOCGETA) }

// SetTermios applies terminal settings to fd at once. Darwin: ioctl
// TIOCSETA.
func SetTermios(fd int, t *unix.Termios) error { return unix.IoctlSetTermios(fd, unix.TIOCSETA, t) }
