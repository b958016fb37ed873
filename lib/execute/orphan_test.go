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

// escapeEnv makes the test binary leave its process group and become
// `sleep VALUE` (see TestMain).
const escapeEnv = "DELTA_EXECUTE_TEST_ESCAPE"

func TestMain(m *testing.M) {
	if marker := os.Getenv(escapeEnv); marker != "" {
		syscall.Setpgid(0, 0)
		sleep, err := exec.LookPath("sleep")
		if err == nil {
			fmt.Println("up") // proves the escape happened before the command ended
			err = syscall.Exec(sleep, []string{"sleep", marker}, os.Environ())
		}
		fmt.Fprintln(os.Stderr, "escape helper:", err)
		os.Exit(3)
	}
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

// TestRunKillsGroupEscapee: a descendant that moved to its own process
// group (but did not detach with setsid) still ends with the command.
func TestRunKillsGroupEscapee(t *testing.T) {
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
}
