package execute

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// helperEnv makes the test binary act as an engine that runs one command
// and is then killed (see TestMain).
const helperEnv = "DELTA_EXECUTE_TEST_HELPER"

func TestMain(m *testing.M) {
	if marker := os.Getenv(helperEnv); marker != "" {
		// Pretend to be an engine running a tool that backgrounds a child.
		Run(context.Background(), Spec{Argv: []string{"sh", "-c", "sleep " + marker + " & sleep " + marker}})
		fmt.Fprintln(os.Stderr, "helper: Run returned, which it should not")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// TestNoOrphansWhenCallerIsKilled SIGKILLs a process in the middle of Run
// and checks that the command and its background grandchild die with it.
func TestNoOrphansWhenCallerIsKilled(t *testing.T) {
	marker := uniqueSleep()
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), helperEnv+"="+marker)
	helper.Stderr = os.Stderr
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return len(sleepers(marker)) == 2 }) {
		helper.Process.Kill()
		t.Fatalf("helper never started both sleeps: %v", sleepers(marker))
	}
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	helper.Wait()
	if !waitFor(func() bool { return len(sleepers(marker)) == 0 }) {
		pids := sleepers(marker)
		killAndWait(t, pids)
		t.Fatalf("processes outlived their killed caller: %v", pids)
	}
}
