package main

import (
	"os"
	"testing"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) { code := m.Run(); clitest.Cleanup(); os.Exit(code) }
