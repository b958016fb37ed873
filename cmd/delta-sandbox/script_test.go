package main

import (
	"os"
	"testing"

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
	clitest.Run(t, "testdata/script", clitest.WithPort(t))
}
