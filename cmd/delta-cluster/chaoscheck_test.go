package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/deltakit/delta/lib/cluster"
)

// chaosCheck checks the invariants after a fault run and returns a
// summary: each batch task has exactly one result, each tool call ran at
// most once (the marker has no line twice) and every call of a completed
// run ran (a run continued on another worker may have had a call killed
// before its tool wrote the marker), and every mirrored journal is seq 1..n with an unbroken chain.
func chaosCheck(t *testing.T, cl *cluster.Cluster, environ []string, batches []string, marker string, syncs map[string]string) string {
	t.Helper()
	calls := map[string]int{}
	for _, l := range markerLines(t, marker) {
		calls[l]++
	}
	for call, n := range calls {
		if n > 1 {
			t.Errorf("tool call %q ran %d times, want at most once", call, n)
		}
	}
	status := map[string]int{}
	tasks, attempts, continued := 0, 0, 0
	for _, b := range batches {
		out, code := run(t, environ, "batch", "results", b)
		if code != 0 {
			t.Errorf("batch results %s exited %d", b, code)
			continue
		}
		got := results(t, out) // fails on a task with two result lines
		if len(got) != chaosTasks {
			t.Errorf("batch %s has %d results, want %d", b, len(got), chaosTasks)
		}
		tasks += chaosTasks
		for id, r := range got {
			status[r.Status]++
			attempts += r.Attempt
			continued += continuedRuns(t, cl, b, id)
			if r.Status != cluster.ResultCompleted {
				// Allowed (a fault may fail a run), but worth reading.
				t.Logf("task %s of %s: %s as run %s after %d attempts: %s", id, b, r.Status, r.RunID, r.Attempt, r.Error)
				continue
			}
			for _, call := range []string{"call_0_0", "call_1_0"} {
				if n := calls[r.RunID+" "+call]; n != 1 && (syncs[b] == "none" || n != 0) {
					t.Errorf("task %s of %s completed as run %s, but its call %s ran %d times", id, b, r.RunID, call, calls[r.RunID+" "+call])
				}
			}
		}
	}
	journals, lines := checkJournals(t, cl)
	return fmt.Sprintf("batches %d, tasks %d, results %v, attempts %d, runs continued on another worker %d, tool calls %d, journals %d (%d lines)",
		len(batches), tasks, status, attempts, continued, len(calls), journals, lines)
}

// continuedRuns is how many times task's runs were continued by another
// worker (workspace_sync git or shared), from its task record.
func continuedRuns(t *testing.T, cl *cluster.Cluster, batch, task string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec, err := cl.TaskRecord(ctx, batch, task)
	if err != nil {
		t.Errorf("task record %s of %s: %v", task, batch, err)
		return 0
	}
	n := 0
	for _, a := range rec.Attempts {
		n += a.Continued
	}
	return n
}

// markerLines reads the marker's "RUN CALL" lines.
func markerLines(t *testing.T, path string) []string {
	ws := lines(t, path) // whitespace-split words: RUN CALL RUN CALL …
	var out []string
	for i := 0; i+1 < len(ws); i += 2 {
		out = append(out, ws[i]+" "+ws[i+1])
	}
	if len(ws)%2 != 0 {
		t.Errorf("the marker has a partial line: %v", ws[len(ws)-1])
	}
	return out
}

// checkJournals replays every run the journal stream holds (Replay checks
// each line against the one before with cluster.Chain) and checks that
// seq runs 1..n with n the run's number of mirrored lines.
func checkJournals(t *testing.T, cl *cluster.Cluster) (runs, total int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := cl.JS.Stream(ctx, cluster.JournalStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(cluster.JournalSubject(">")))
	if err != nil {
		t.Fatal(err)
	}
	for subject, count := range info.State.Subjects {
		run := strings.TrimPrefix(subject, cluster.JournalSubject(""))
		n := 0
		err := cl.Replay(ctx, run, false, func(e cluster.Entry) error {
			n++
			if e.Seq != n {
				return fmt.Errorf("line %d has seq %d", n, e.Seq)
			}
			return nil
		})
		if err != nil {
			t.Errorf("run %s: %v", run, err)
		}
		if uint64(n) != count {
			t.Errorf("run %s: replayed %d lines of the %d the stream holds", run, n, count)
		}
		runs++
		total += n
	}
	if runs == 0 {
		t.Error("the cluster mirrored no journal")
	}
	return runs, total
}
