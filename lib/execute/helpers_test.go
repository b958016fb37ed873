package execute

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// uniqueSleep returns a sleep duration no other process uses, so the test
// can find exactly its own sleep processes in /proc.
func uniqueSleep() string {
	return fmt.Sprintf("%d.%06d", 1000+rand.IntN(8000), rand.IntN(1000000))
}

// sleepers lists live processes running `sleep marker` (a zombie's
// cmdline is empty, so zombies never match).
func sleepers(marker string) []int {
	want := []byte("sleep\x00" + marker + "\x00")
	names, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, name := range names {
		cmdline, err := os.ReadFile(name)
		if err != nil || !bytes.HasSuffix(cmdline, want) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(name))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitFor polls cond for up to 20s (a bound against hanging, not a speed
// assertion).
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}

func killAndWait(t *testing.T, pids []int) {
	t.Helper()
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
}
