package sys

import "golang.org/x/sys/unix"

// GetTermios reads the terminal settings of fd. Linux: ioctl TCGETS.
func GetTermios(fd int) (*unix.Termios, error) { return unix.IoctlGetTermios(fd, unix.TCGETS) }

// SetTermios applies terminal settings to fd at once. Linux: ioctl TCSETS.
func SetTermios(fd int, t *unix.Termios) error { return unix.IoctlSetTermios(fd, unix.TCSETS, t) }
