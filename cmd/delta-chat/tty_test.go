package main

import (
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/deltakit/delta/lib/sys"
)

// TestKeepKeys: between two prompts the terminal is not canonical, so a
// Ctrl-D there reaches the line editor as a key instead of ending its
// input for good; the terminal's own mode comes back afterwards.
func TestKeepKeys(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	lflag := func() uint64 { // uint32 on Linux, uint64 on macOS
		tio, err := sys.GetTermios(int(tty.Fd()))
		if err != nil {
			t.Fatal(err)
		}
		return uint64(tio.Lflag)
	}
	before := lflag()
	if before&unix.ICANON == 0 {
		t.Fatal("a new pseudo-terminal is not canonical")
	}
	restore, err := keepKeys(tty)
	if err != nil {
		t.Fatal(err)
	}
	if got := lflag(); got&unix.ICANON != 0 || got&unix.ECHO != before&unix.ECHO || got&unix.ISIG != before&unix.ISIG {
		t.Errorf("keepKeys: lflag %#x, want %#x without ICANON", got, before)
	}
	// A Ctrl-D typed now is a byte to read, not end-of-file.
	if _, err := ptmx.Write([]byte{4}); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if n, err := tty.Read(buf); err != nil || n != 1 || buf[0] != 4 {
		t.Errorf("read after Ctrl-D = %q, %v; want the byte 4", buf[:n], err)
	}
	restore()
	if got := lflag(); got != before {
		t.Errorf("after restore: lflag %#x, want %#x", got, before)
	}
}
