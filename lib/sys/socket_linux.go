package sys

import "golang.org/x/sys/unix"

// SendFlags are the flags for sendmsg(2) on a PacketPair socket: a peer
// that is gone gives EPIPE, never SIGPIPE. Linux: MSG_NOSIGNAL.
const SendFlags = unix.MSG_NOSIGNAL

// PacketPair returns a connected pair of close-on-exec Unix sockets that
// keep message boundaries, deliver in order, pass descriptors and report
// end-of-file (a read of 0 bytes) when the peer closes, for messages of up
// to maxPacket bytes. Linux: socketpair(AF_UNIX, SOCK_SEQPACKET |
// SOCK_CLOEXEC).
func PacketPair(maxPacket int) ([2]int, error) {
	return unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
}

// Recvmsg receives one message on fd like recvmsg(2), with every
// descriptor it carries already close-on-exec, so a process started
// meanwhile by another thread never inherits one. Linux: MSG_CMSG_CLOEXEC.
func Recvmsg(fd int, p, oob []byte) (n, oobn int, err error) {
	n, oobn, _, _, err = unix.Recvmsg(fd, p, oob, unix.MSG_CMSG_CLOEXEC)
	return n, oobn, err
}
