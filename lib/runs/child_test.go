package runs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// childEnv makes the test binary play a delta-run child (see TestMain and
// fakeDeltaRun); its value says how.
const childEnv = "DELTA_RUNS_TEST_CHILD"

// fakeDeltaRun is the test binary as a delta-run child:
//
//	echo      prints its stdin as a COMPLETED Result's answer, exits 0
//	wait      prints a WAITING_FOR_INPUT Result, exits 101
//	sigint    says "ready" on stderr, exits 130 on SIGINT
//	deaf      says "ready" on stderr, ignores SIGINT until killed
//	hold DIR  writes DIR/metadata.json naming itself, waits for SIGINT
//	fail      says why on stderr, exits 126
func fakeDeltaRun(mode string) int {
	switch mode, arg, _ := strings.Cut(mode, " "); mode {
	case "echo":
		in, _ := io.ReadAll(os.Stdin)
		fmt.Printf(`{"schema_version":"2.0","run_id":"r","status":"COMPLETED","result":%q}`, string(in))
		return ExitCompleted
	case "wait":
		fmt.Print(`{"run_id":"r","status":"WAITING_FOR_INPUT","interaction":{"prompt":"which?","input_type":"text","sensitive":false}}`)
		return ExitWaiting
	case "sigint", "deaf", "hold":
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt)
		if mode == "hold" {
			if err := WriteMetadata(arg, &Metadata{RunID: "r", Status: Running, PID: os.Getpid()}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return ExitFailed
			}
		}
		fmt.Fprintln(os.Stderr, "ready")
		<-sig
		if mode == "deaf" {
			select {} // until killed
		}
		return ExitInterrupted
	case "fail":
		fmt.Fprintln(os.Stderr, "delta-run: error: no agent")
		return ExitConfig
	}
	return 2
}

// startFake starts the test binary as a delta-run child in mode.
func startFake(t *testing.T, mode string, c ChildCommand) *Child {
	t.Helper()
	c.Binary, c.Args = os.Args[0], []string{"-test.run=^$"}
	c.Env = append(os.Environ(), childEnv+"="+mode)
	child, err := StartChild(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Stop(10 * time.Second) })
	return child
}

// ready starts a fake that says "ready" on stderr once it handles SIGINT,
// and waits for that line.
func ready(t *testing.T, mode string) *Child {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	child := startFake(t, mode, ChildCommand{Stderr: w})
	w.Close()
	if line, err := bufio.NewReader(r).ReadString('\n'); line != "ready\n" {
		t.Fatalf("fake delta-run said %q (%v), want ready", line, err)
	}
	return child
}

func TestExitStatus(t *testing.T) {
	got := map[int]Status{}
	for _, code := range []int{ExitCompleted, ExitFailed, ExitWaiting, ExitConfig, ExitInterrupted, 137} {
		got[code] = ExitStatus(code)
	}
	want := map[int]Status{0: Completed, 1: Failed, 101: WaitingForInput, 126: Failed, 130: Interrupted, 137: Failed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExitStatus (-want +got):\n%s", diff)
	}
}

func TestDecodeResult(t *testing.T) {
	tests := []struct {
		name, doc           string
		text, message, wait string
		err                 error
	}{
		{name: "string answer", doc: `{"status":"COMPLETED","result":"done"}`, text: "done"},
		{name: "json answer", doc: `{"status":"COMPLETED","result":{"n":1}}`, text: `{"n":1}`},
		{name: "failed", doc: `{"status":"FAILED","error":{"type":"llm_error","message":"no key"}}`, message: "no key"},
		{name: "waiting", doc: `{"status":"WAITING_FOR_INPUT","interaction":{"prompt":"ok?","input_type":"approval"}}`, wait: "ok?"},
		{name: "no status", doc: `{"run_id":"r"}`, err: ErrNoResult},
		{name: "not json", doc: "delta-run: error: x", err: ErrNoResult},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := DecodeResult([]byte(tt.doc))
			if !errors.Is(err, tt.err) {
				t.Fatalf("DecodeResult(%s) error = %v, want %v", tt.doc, err, tt.err)
			}
			var wait string
			if r != nil && r.Interaction != nil {
				wait = r.Interaction.Prompt
			}
			if r.Text() != tt.text || r.Message() != tt.message || wait != tt.wait {
				t.Errorf("DecodeResult(%s) = text %q, message %q, waits for %q; want %q, %q, %q", tt.doc, r.Text(), r.Message(), wait, tt.text, tt.message, tt.wait)
			}
		})
	}
}

// A child gets its stdin, and its Result and exit code come back.
func TestChildResult(t *testing.T) {
	var out strings.Builder
	child := startFake(t, "echo", ChildCommand{Stdin: strings.NewReader("the answer"), Stdout: &out})
	exit := child.Wait()
	if exit != (Exit{Code: ExitCompleted}) {
		t.Fatalf("Wait() = %+v, want exit 0", exit)
	}
	r, err := DecodeResult([]byte(out.String()))
	if err != nil || r.Status != Completed || r.Text() != "the answer" {
		t.Fatalf("Result = %+v (%v), want COMPLETED with the stdin as its answer", r, err)
	}

	out.Reset()
	exit = startFake(t, "wait", ChildCommand{Stdout: &out}).Wait()
	if exit.Status() != WaitingForInput {
		t.Errorf("exit %d: Status() = %s, want %s", exit.Code, exit.Status(), WaitingForInput)
	}
}

// Interrupt is Ctrl-C; WaitContext interrupts when its context ends;
// Stop kills what does not listen.
func TestChildSignals(t *testing.T) {
	if exit := ready(t, "sigint").Stop(time.Minute); exit.Code != ExitInterrupted {
		t.Errorf("Stop of a child that handles SIGINT: exit %d, want %d", exit.Code, ExitInterrupted)
	}
	ctx, cancel := context.WithCancel(context.Background())
	child := ready(t, "sigint")
	cancel()
	if exit := child.WaitContext(ctx); exit.Status() != Interrupted {
		t.Errorf("WaitContext with an ended context: exit %d, want %d", exit.Code, ExitInterrupted)
	}
	if exit := ready(t, "deaf").Stop(0); exit.Code != 128+int(syscall.SIGKILL) {
		t.Errorf("Stop of a child deaf to SIGINT: exit %d, want %d (killed)", exit.Code, 128+int(syscall.SIGKILL))
	}
}

func TestAwaitRun(t *testing.T) {
	dir := t.TempDir()
	child := startFake(t, "hold "+dir, ChildCommand{})
	m, err := child.AwaitRun(context.Background(), dir, time.Minute)
	if err != nil || m.PID != child.PID() {
		t.Fatalf("AwaitRun = %+v, %v; want the metadata naming pid %d", m, err, child.PID())
	}

	var stderr strings.Builder
	child = startFake(t, "fail", ChildCommand{Stderr: &stderr})
	if _, err := child.AwaitRun(context.Background(), filepath.Join(dir, "none"), time.Minute); !errors.Is(err, ErrChildEnded) {
		t.Errorf("AwaitRun of a child that fails to start = %v, want ErrChildEnded", err)
	}
	if exit := child.Wait(); exit.Code != ExitConfig || !strings.Contains(stderr.String(), "no agent") {
		t.Errorf("failed child: exit %d, stderr %q; want %d and its error", exit.Code, stderr.String(), ExitConfig)
	}
}
