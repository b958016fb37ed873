package execute

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
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

// sleepers lists live processes running `sleep marker`.
func sleepers(marker string) []int {
	want := []byte("sleep\x00" + marker + "\x00")
	var pids []int
	for _, p := range listProcs() {
		if p.state == 'Z' {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
		if err == nil && bytes.HasSuffix(cmdline, want) {
			pids = append(pids, p.pid)
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
