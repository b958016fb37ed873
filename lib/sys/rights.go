//go:build unix

package sys

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// ReceivedFDs returns the descriptors passed in the control data oob of a
// message received with Recvmsg (its SCM_RIGHTS messages).
func ReceivedFDs(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// UnixRights encodes descriptors as the control data of one message
// (SCM_RIGHTS), for sendmsg(2).
func UnixRights(fds ...int) []byte { return unix.UnixRights(fds...) }

// RightsSpace is the size of control data that holds n descriptors.
func RightsSpace(n int) int { return unix.CmsgSpace(4 * n) }

// SignalName is the name of sig, such as "SIGTERM".
func SignalName(sig syscall.Signal) string { return unix.SignalName(sig) }

// Send writes one message on a PacketPair socket; a peer that is gone
// gives an error (EPIPE), never SIGPIPE.
func Send(fd int, data []byte) error { return unix.Sendmsg(fd, data, nil, nil, SendFlags) }
