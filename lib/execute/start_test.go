package execute

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// TestStartTalksOverPipes: a started command reads what is written to its
// stdin and answers on its stdout; closing stdin ends it cleanly.
func TestStartTalksOverPipes(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		p, err := Start(Spec{Argv: []string{"cat"}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(p.Stdin, "ping")
		line, err := bufio.NewReader(p.Stdout).ReadString('\n')
		if err != nil || line != "ping\n" {
			t.Fatalf("read = %q, %v; want ping", line, err)
		}
		if err := p.Stop(waitLong); err != nil {
			t.Errorf("Stop() = %v, want nil (cat exits at end of input)", err)
		}
	})
}

// waitLong is how long Stop waits for a command that does exit at the end
// of its input: a bound against hanging only.
const waitLong = 20e9

// TestStartStopKillsTree: a command that ignores the end of its input,
// and a background child of it, are both killed by Stop.
func TestStartStopKillsTree(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		marker := uniqueSleep()
		p, err := Start(Spec{Argv: []string{"sh", "-c", "sleep " + marker + " & echo up; sleep " + marker}, KillGrace: 1e8}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(p.Stdout).ReadString('\n'); line != "up\n" {
			t.Fatalf("read %q, want up", line)
		}
		if !waitFor(func() bool { return len(sleepers(marker)) == 2 }) {
			t.Fatalf("sleeps never started: %v", sleepers(marker))
		}
		if err := p.Stop(0); err == nil {
			t.Errorf("Stop() = nil, want the signal that ended the command")
		}
		if pids := sleepers(marker); len(pids) != 0 {
			killAndWait(t, pids)
			t.Errorf("processes outlived Stop: %v", pids)
		}
		if err2 := p.Stop(0); err2 == nil {
			t.Errorf("second Stop() = nil, want the same error")
		}
	})
}

// slowWriter takes a while over every write, as a consumer under load
// does, and counts the bytes.
type slowWriter struct {
	mu sync.Mutex
	n  int
}

func (w *slowWriter) Write(b []byte) (int, error) {
	time.Sleep(2 * time.Millisecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(b)
	return len(b), nil
}

func (w *slowWriter) bytes() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// TestStartStderrBeforeDone: by Done, everything the command wrote on
// stderr has reached the writer Start was given (a crashed server's last
// words are there to explain its exit).
func TestStartStderrBeforeDone(t *testing.T) {
	forEachGuard(t, func(t *testing.T) {
		w := &slowWriter{}
		p, err := Start(Spec{Argv: []string{"sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x >&2"}}, w)
		if err != nil {
			t.Fatal(err)
		}
		<-p.Done()
		if n := w.bytes(); n != 200000 {
			t.Errorf("stderr bytes written by Done = %d, want 200000", n)
		}
		p.Stop(0)
	})
}
