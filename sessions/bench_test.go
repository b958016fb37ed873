package sessions

import (
	"os/exec"
	"testing"
)

// The benchmarks compare an exec round trip through a session with running
// the bare command, to show the overhead of keeping state.

func BenchmarkBareBash(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("bash", "-c", "echo hi").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecBash(b *testing.B) {
	st, opt := testStore(b)
	m, err := st.Start([]string{"bash"}, opt)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := st.Exec(m.SessionID, "echo hi", DefaultTimeout); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFreshPython(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 not installed")
	}
	for b.Loop() {
		if err := exec.Command("python3", "-c", "print(1)").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecPython(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 not installed")
	}
	st, opt := testStore(b)
	m, err := st.Start([]string{"python3"}, opt)
	if err != nil {
		b.Fatal(err)
	}
	defer st.End(m.SessionID)
	for b.Loop() {
		if _, err := st.Exec(m.SessionID, "print(1)", DefaultTimeout); err != nil {
			b.Fatal(err)
		}
	}
}
