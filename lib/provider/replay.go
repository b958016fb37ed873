package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// ErrDiverged is matched (errors.Is) by a replay whose run no longer asks
// what the recorded run asked.
var ErrDiverged = errors.New("replay diverged from the recording")

// DivergedError names the iteration where a replayed run asked for other
// tool calls than the recorded one.
type DivergedError struct {
	Iteration int
	Got, Want []string
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("replay diverged at iteration %d: the run's tool calls so far are [%s], the recording's were [%s]",
		e.Iteration, strings.Join(e.Got, ", "), strings.Join(e.Want, ", "))
}

// Is makes errors.Is(err, ErrDiverged) true.
func (e *DivergedError) Is(target error) bool { return target == ErrDiverged }

// replayRecord is the part of an io/invocations record a replay reads.
type replayRecord struct {
	Iteration int           `json:"iteration"`
	Request   llm.Request   `json:"request"`
	Response  *llm.Response `json:"response"`
}

// replay answers each iteration with the model's recorded answer of that
// iteration in another run (its io/invocations records), so tools and
// hooks can be changed and tried offline against real model output.
type replay struct {
	runDir string
	byIter map[int]replayRecord
	last   int
}

// NewReplay reads the model answers recorded in the run directory runDir.
func NewReplay(runDir string) (llm.Provider, error) {
	dir := filepath.Join(runDir, runs.InvocationsDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // by time: a later answer of an iteration wins
	r := &replay{runDir: runDir, byIter: map[int]replayRecord{}}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		var rec replayRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			return nil, fmt.Errorf("replay: %s: %w", filepath.Join(dir, name), err)
		}
		if rec.Response == nil {
			continue // a failed call
		}
		r.byIter[rec.Iteration] = rec
		r.last = max(r.last, rec.Iteration)
	}
	if len(r.byIter) == 0 {
		return nil, fmt.Errorf("replay: %s holds no recorded model answer", dir)
	}
	return r, nil
}

// Complete returns the recorded answer of the request's iteration, after
// checking that the run got there asking for the tool calls the recorded
// run asked for.
func (r *replay) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	it := req.Turn + 1
	rec, ok := r.byIter[it]
	if !ok {
		return llm.Response{}, fmt.Errorf("replay: %s has no recorded answer for iteration %d (its last is %d)", r.runDir, it, r.last)
	}
	if got, want := callsOf(req.Messages), callsOf(rec.Request.Messages); !slices.Equal(got, want) {
		return llm.Response{}, &DivergedError{Iteration: it, Got: got, Want: want}
	}
	return *rec.Response, nil
}

// callsOf lists the tool calls of a conversation's assistant messages as
// name(arguments).
func callsOf(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			out = append(out, c.Name+"("+compactJSON(c.Arguments)+")")
		}
	}
	return out
}

// compactJSON drops the insignificant spaces of a JSON text, so that the
// same arguments compare equal however they were spaced.
func compactJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
