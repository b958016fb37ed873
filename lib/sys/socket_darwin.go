package sys

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// SendFlags are the flags for sendmsg(2) on a PacketPair socket. Darwin
// has no MSG_NOSIGNAL: PacketPair sets SO_NOSIGPIPE on the sockets.
const SendFlags = 0

// PacketPair returns a connected pair of close-on-exec Unix sockets that
// keep message boundaries, deliver in order, pass descriptors and report
// end-of-file (a read of 0 bytes) when the peer closes, for messages of up
// to maxPacket bytes. Darwin has no SOCK_SEQPACKET for Unix sockets: it
// is a SOCK_DGRAM pair (reliable and ordered between two connected Unix
// sockets) with buffers raised to hold maxPacket, SO_NOSIGPIPE, and
// close-on-exec set under syscall.ForkLock, as the standard library does
// where socketpair(2) takes no SOCK_CLOEXEC.
func PacketPair(maxPacket int) ([2]int, error) {
	syscall.ForkLock.RLock()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err == nil {
		unix.CloseOnExec(fds[0])
		unix.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return fds, err
	}
	for _, fd := range fds {
		err = errors.Join(err,
			unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 2*maxPacket),
			unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 4*maxPacket),
			unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_NOSIGPIPE, 1))
	}
	if err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
	}
	return fds, err
}

// Recvmsg receives one message on fd like recvmsg(2), with every
// descriptor it carries already close-on-exec, so a process started
// meanwhile by another thread never inherits one. Darwin has no
// MSG_CMSG_CLOEXEC: it waits for a message with poll(2), then receives
// it without blocking and sets close-on-exec on its descriptors while
// holding syscall.ForkLock, which every fork in a Go program takes: no
// fork falls between the two.
func Recvmsg(fd int, p, oob []byte) (n, oobn int, err error) {
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			return 0, 0, err
		}
		syscall.ForkLock.RLock()
		n, oobn, _, _, err = unix.Recvmsg(fd, p, oob, unix.MSG_DONTWAIT)
		if err == nil {
			for _, d := range ReceivedFDs(oob[:oobn]) {
				unix.CloseOnExec(d)
			}
		}
		syscall.ForkLock.RUnlock()
		if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
			return n, oobn, err
		}
	}
}
