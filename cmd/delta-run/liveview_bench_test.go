package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/lib/tool"
)

// BenchmarkToolOutput50MB is a command tool call printing 50 MB, without
// anyone watching (view=none) and with a live view reading its output
// files as it runs (view=live), polled every millisecond rather than
// every livePoll to make its cost show. Each poll reads at most
// maxOutputChunk per stream, so the two must cost about the same
// (the ratio is reported in the view=live case).
func BenchmarkToolOutput50MB(b *testing.B) {
	tl, err := tool.Expand(tool.Definition{Name: "big", Shell: "head -c 52428800 /dev/zero | tr '\\0' x"})
	if err != nil {
		b.Fatal(err)
	}
	box := engine.NewCommandTools(&agent.Agent{Tools: []tool.Tool{tl}}, []string{"PATH=" + os.Getenv("PATH")})
	call := func(b *testing.B, watch bool) {
		dir := b.TempDir()
		run := engine.RunInfo{RunID: "r", RunDir: dir, WorkDir: dir, Iteration: 1}
		stop, done := make(chan struct{}), make(chan int)
		if watch {
			out, errOut := runs.CallOutput(1, "c1")
			f := newFollower(runRef{id: "r"}, dir, dir, false, false, nil)
			var sink countSink
			f.handle(journal.Event{Type: journal.ActionRequest, CallID: "c1", OutputFile: out, StderrFile: errOut}, &sink)
			go func() {
				for {
					select {
					case <-stop:
						f.handle(journal.Event{Type: journal.ActionResult, CallID: "c1"}, &sink)
						done <- sink.n
						return
					case <-time.After(time.Millisecond):
						_ = f.poll(&sink)
					}
				}
			}()
		}
		res, err := box.Call(context.Background(), run, "c1", "big", []byte("{}"))
		if err != nil || res.ExitCode != 0 {
			b.Fatal(res, err)
		}
		if watch {
			close(stop)
			if <-done == 0 {
				b.Fatal("the view saw no output")
			}
		}
	}
	var none time.Duration
	b.Run("view=none", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			call(b, false)
		}
		none = time.Since(start) / time.Duration(b.N)
	})
	b.Run("view=live", func(b *testing.B) {
		start := time.Now()
		for b.Loop() {
			call(b, true)
		}
		if none > 0 {
			b.ReportMetric(float64(time.Since(start)/time.Duration(b.N))/float64(none), "x-view=none")
		}
	})
}

// countSink counts the tool_output pieces a view shows.
type countSink struct{ n int }

func (c *countSink) event(runRef, journal.Event)   {}
func (c *countSink) output(_ runRef, _ toolOutput) { c.n++ }
