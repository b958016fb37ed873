package main

import (
	"net"
	"os"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/sandbox"
)

func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }

// TestScripts runs testdata/script/*.txtar against the real binaries, with
// $PORT a TCP port on loopback that accepts connections (and closes them).
func TestScripts(t *testing.T) {
	if s := sandbox.Probe(); !s.FS || !s.Net {
		t.Skipf("this kernel cannot sandbox (Landlock ABI %d): %v", s.ABI, s.Err)
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	clitest.Run(t, "testdata/script", clitest.WithSetup(func(env *testscript.Env) error {
		env.Setenv("PORT", port)
		return nil
	}))
}
