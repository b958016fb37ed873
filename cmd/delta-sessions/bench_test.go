package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/clitest"
)

// BenchmarkExecVsBash runs the real `delta-sessions exec SESSION true` in a
// bash session that has state to keep (a directory, variables, an array, a
// function, an alias, options), alternating with a bare `bash -c true`, and
// reports both and their ratio: the price of a persistent shell measured
// in the same run, so the machine's load weighs on both alike.
func BenchmarkExecVsBash(b *testing.B) {
	bin := clitest.ReleaseBinary(b, "./cmd/delta-sessions")
	dir := b.TempDir()
	env := append(os.Environ(), "DELTA_SESSIONS_DIR="+filepath.Join(dir, ".sessions"))
	var sessCPU time.Duration // the exec and the shell it ran, user + system
	run := func(args ...string) []byte {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, dir
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("delta-sessions %v: %v\n%s", args, err, out)
		}
		sessCPU += cpuOf(cmd)
		return out
	}
	run("start", "--id", "sess_bench", "bash")
	run("exec", "sess_bench", `mkdir -p sub && cd sub; export A=1; b=(x y z); f() { echo "$1"; }; alias ll='ls -l'; set -o pipefail; shopt -s extglob`)
	var res struct {
		Stdout string `json:"stdout"`
	}
	if err := json.Unmarshal(run("exec", "sess_bench", `echo "$A ${b[2]} $(f ok) $(alias ll) $PWD"`), &res); err != nil || res.Stdout != "1 z ok alias ll='ls -l' "+filepath.Join(dir, "sub")+"\n" {
		b.Fatalf("session state not kept: %q (%v)", res.Stdout, err)
	}
	var bash, sess, bashCPU time.Duration
	sessCPU = 0
	for b.Loop() {
		t0 := time.Now()
		bare := exec.Command("bash", "-c", "true")
		if err := bare.Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		run("exec", "sess_bench", "true")
		bash, sess = bash+t1.Sub(t0), sess+time.Since(t1)
		bashCPU += cpuOf(bare)
	}
	n := float64(b.N)
	b.ReportMetric(float64(bash.Microseconds())/1000/n, "bash-ms/op")
	b.ReportMetric(float64(sess.Microseconds())/1000/n, "exec-ms/op")
	b.ReportMetric(float64(sess)/float64(bash), "exec/bash")
	// On a busy machine a short program's wall time is mostly waiting to
	// be scheduled, which flatters the ratio; CPU time does not.
	b.ReportMetric(float64(sessCPU)/float64(bashCPU), "exec/bash-cpu")
}

// cpuOf is the user and system time of a command that has run, its
// children that it waited for included (the session's shell).
func cpuOf(c *exec.Cmd) time.Duration {
	return c.ProcessState.UserTime() + c.ProcessState.SystemTime()
}
