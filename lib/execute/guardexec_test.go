package execute

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/deltakit/delta/lib/execute/guard"
)

// TestRunUsesTheChosenGuard checks which program the command's parent,
// the guard, really is.
func TestRunUsesTheChosenGuard(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, binary, want string }{
		{"dedicated", dedicatedGuard, dedicatedGuard},
		{"self", "", self},
	} {
		t.Run(tt.name, func(t *testing.T) {
			useGuard(t, tt.binary)
			want, err := filepath.EvalSymlinks(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			got := run(t, Spec{Argv: []string{"sh", "-c", `readlink /proc/$PPID/exe`}})
			if got.Stdout != want+"\n" {
				t.Errorf("guard executable = %q, want %q", got.Stdout, want+"\n")
			}
		})
	}
}

// TestFindGuardBinary: the guard next to the running executable wins over
// one on PATH; without either, there is none.
func TestFindGuardBinary(t *testing.T) {
	installed, onPath, empty := t.TempDir(), t.TempDir(), t.TempDir()
	for _, dir := range []string{installed, onPath} {
		copyFile(t, dedicatedGuard, filepath.Join(dir, guard.Name))
	}
	copyFile(t, os.Args[0], filepath.Join(installed, "delta-something"))
	tests := []struct {
		name, exe, path, want string
	}{
		{"next to the executable", filepath.Join(installed, "delta-something"), onPath, filepath.Join(installed, guard.Name)},
		{"on PATH", os.Args[0], empty + ":" + onPath, filepath.Join(onPath, guard.Name)},
		{"none", os.Args[0], empty, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(tt.exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), findEnv+"=1", "PATH="+tt.path)
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("findGuardBinary() with %s = %q, want %q", tt.name, out, tt.want)
			}
		})
	}
}

// TestRunForeignGuard: a guard that exits without a status report is an
// error, not a command that exited 0.
func TestRunForeignGuard(t *testing.T) {
	fake := filepath.Join(t.TempDir(), guard.Name)
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	useGuard(t, fake)
	_, err := Run(context.Background(), Spec{Argv: []string{"true"}})
	if !errors.Is(err, ErrGuard) {
		t.Errorf("Run with a foreign guard: error = %v, want ErrGuard", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRunGuardVanished: a dedicated guard removed after it was found does
// not stop commands from running; the current executable takes over.
func TestRunGuardVanished(t *testing.T) {
	useGuard(t, filepath.Join(t.TempDir(), guard.Name))
	got := run(t, Spec{Argv: []string{"sh", "-c", "echo ran; exit 4"}})
	if got.Stdout != "ran\n" || got.ExitCode != 4 {
		t.Errorf("Run without its guard binary = %q, exit %d; want %q, 4", got.Stdout, got.ExitCode, "ran\n")
	}
}
