package sys

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPacketPairPassesDescriptors: a message and a descriptor go across
// in one packet, the descriptor arrives close-on-exec, and the peer's
// close reads as a 0-byte message.
func TestPacketPairPassesDescriptors(t *testing.T) {
	fds, err := PacketPair(1 << 10)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[1])
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := unix.Sendmsg(fds[0], []byte("hello"), unix.UnixRights(int(w.Fd())), nil, SendFlags); err != nil {
		t.Fatal(err)
	}
	buf, oob := make([]byte, 64), make([]byte, unix.CmsgSpace(4*4))
	n, oobn, err := Recvmsg(fds[1], buf, oob)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("Recvmsg = %q, %v; want hello", buf[:n], err)
	}
	got := ReceivedFDs(oob[:oobn])
	if len(got) != 1 {
		t.Fatalf("ReceivedFDs = %v, want one descriptor", got)
	}
	defer unix.Close(got[0])
	flags, err := unix.FcntlInt(uintptr(got[0]), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("received descriptor flags = %#x, %v; want FD_CLOEXEC", flags, err)
	}
	unix.Close(fds[0])
	if n, _, err := Recvmsg(fds[1], buf, oob); n != 0 || err != nil {
		t.Errorf("Recvmsg after the peer closed = %d, %v; want 0, nil", n, err)
	}
}
