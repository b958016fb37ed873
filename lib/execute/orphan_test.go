package execute

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestNoOrphansWhenCallerIsKilled SIGKILLs a process in the middle of Run
// and checks that the command and its background grandchild die with it.
func TestNoOrphansWhenCallerIsKilled(t *testing.T) {
	forEachGuard(t, func(t *testing.T) { killCallerMidRun(t, helperEnv) })
}

// TestNoOrphansWhenNestedCallerIsKilled: the killed caller's command runs
// commands under a guard of its own (a worker's delta-run and its tools).
// That inner guard must outlive the outer guard's clean-up long enough to
// end its own commands.
func TestNoOrphansWhenNestedCallerIsKilled(t *testing.T) {
	forEachGuard(t, func(t *testing.T) { killCallerMidRun(t, nestEnv) })
}

// killCallerMidRun starts the test binary as the helper mode names,
// SIGKILLs it once both of its sleeps run and checks that they die.
func killCallerMidRun(t *testing.T, mode string) {
	marker := uniqueSleep()
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), mode+"="+marker, guardEnvFor(guardBinary()))
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

// TestRunKillsGroupEscapee: a descendant that moved to its own process
// group (but did not detach with setsid) still ends with the command.
func TestRunKillsGroupEscapee(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		marker := uniqueSleep()
		env := append(os.Environ(), escapeEnv+"="+marker)
		got := run(t, Spec{Argv: []string{"sh", "-c", `"$0" & sleep 0.3; echo bye`, os.Args[0]}, Env: env})
		if got.Stdout != "up\nbye\n" {
			t.Fatalf("Run stdout = %q, stderr %q", got.Stdout, got.Stderr)
		}
		if pids := sleepers(marker); len(pids) != 0 {
			killAndWait(t, pids)
			t.Errorf("a process in its own group outlived the command: %v", pids)
		}
	})
}
