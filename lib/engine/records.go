package engine

import (
	"encoding/json"
	"fmt"
	"log"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
)

// invocation is one io/invocations record: the exact request sent to the
// model and its answer (or error). API keys are never part of a Request.
// writeInvocation writes it field by field (see there); the struct is the
// record's shape for readers.
type invocation struct {
	Iteration  int             `json:"iteration"`
	Timestamp  time.Time       `json:"timestamp"`
	DurationMS int64           `json:"duration_ms"`
	Request    json.RawMessage `json:"request"`
	Response   *llm.Response   `json:"response,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// invocation hands over the io/invocations record of one model call,
// started at started, and returns its path relative to the run directory.
// The record is put together behind the engine too: encoded is the
// request as already encoded (nil: it is encoded there), and req and resp
// are not changed afterwards (the engine's own changes to the answer go to
// a copy of its tool calls).
func (r *Records) invocation(it int, started time.Time, d time.Duration, req llm.Request, encoded json.RawMessage, resp llm.Response, callErr error) string {
	now := started.Add(d).UTC()
	rel := invocationPath(it, now)
	resp.ToolCalls = slices.Clone(resp.ToolCalls)
	r.behind(rel, func() ([]byte, error) { return invocationData(it, now, d, req, encoded, resp, callErr) })
	return rel
}

// invocationData is the record of one model call (see invocation).
func invocationData(it int, now time.Time, d time.Duration, req llm.Request, encoded json.RawMessage, resp llm.Response, callErr error) ([]byte, error) {
	if encoded == nil {
		var err error
		if encoded, err = json.Marshal(req); err != nil {
			return nil, err
		}
	}
	return encodeInvocation(it, now, d, encoded, resp, callErr)
}

// invocationPath is the record's path relative to the run directory
// ("{timestamp}_{iteration}.json", seeds/000 §1.2).
func invocationPath(it int, now time.Time) string {
	return filepath.Join(runs.InvocationsDir, fmt.Sprintf("%s_%d.json", now.Format("20060102T150405.000000000Z"), it))
}

// WriteToolRecord writes a tool call's record under run.RunDir (at
// rec.Path()) and returns that path. Under an engine (run.Records set)
// the record is redacted and written behind (Records); otherwise, as for
// delta mcp serve, it is written before WriteToolRecord returns. Command,
// plugin, MCP, subagent and workflow tools all write theirs here.
func WriteToolRecord(run RunInfo, rec runs.ToolRecord) (string, error) {
	data, err := rec.Encode()
	if err != nil {
		return "", err
	}
	rel := rec.Path()
	if run.Records != nil {
		run.Records.behind(rel, func() ([]byte, error) { return run.Records.redacted(data), nil })
		return rel, nil
	}
	if err := writeRecordIn(run.RunDir, rel, data); err != nil {
		return "", fmt.Errorf("write tool execution record: %w", err)
	}
	return rel, nil
}

// Records writes a run's io/ records (a model call's, a tool call's) while
// the engine goes on: creating a file is among the dearest steps of an
// iteration, and the next fsync of the journal commits it anyway. A record
// is an audit trail, not state: a crash before it lands (or a failed
// write, which is logged) leaves the journal event that names it pointing
// at nothing, and the journal holds what the run needs. The engine waits
// for the records before each model call (the model may be shown a path
// into one), before a configured hook runs, and when the run stops.
type Records struct {
	runDir string
	redact *redact.Redactor // applied to tool records; nil: nothing to hide
	log    *log.Logger
	// pending counts the writes not done yet; idle is closed when it
	// drops to zero. (Not a sync.WaitGroup: a tool host's calls hand
	// over records while another call waits for its own, and a
	// WaitGroup may not be added to while a Wait is returning.)
	mu      sync.Mutex
	pending int
	idle    chan struct{}
	hold    chan struct{} // tests: every write waits until it is closed
}

// NewRecords is the Records of a run's tools that run in another process
// than its engine (delta-toolhost, for plugins and MCP servers): the
// records of the tool calls it is given are written and redacted (with
// r; nil: nothing to hide) as the engine's own would be, and a failed
// write is logged to l.
func NewRecords(runDir string, r *redact.Redactor, l *log.Logger) *Records {
	return &Records{runDir: runDir, redact: r, log: l}
}

// behind writes the record that data makes at rel, in the background
// (data runs there too: encoding and redacting are off the loop's path).
func (r *Records) behind(rel string, data func() ([]byte, error)) {
	r.add()
	go func() {
		defer r.done()
		if r.hold != nil {
			<-r.hold
		}
		b, err := data()
		if err == nil {
			err = writeRecordIn(r.runDir, rel, b)
		}
		if err != nil {
			r.log.Printf("write record %s: %v", rel, err)
		}
	}()
}

// redacted is the JSON record data with the run's secrets redacted.
func (r *Records) redacted(data []byte) []byte {
	if r.redact != nil {
		data, _ = redactJSON(r.redact, data)
	}
	return data
}

// Wait returns once every record handed over so far is written.
func (r *Records) Wait() {
	r.mu.Lock()
	if r.pending == 0 {
		r.mu.Unlock()
		return
	}
	idle := r.idle
	r.mu.Unlock()
	<-idle
}

func (r *Records) add() {
	r.mu.Lock()
	if r.pending == 0 {
		r.idle = make(chan struct{})
	}
	r.pending++
	r.mu.Unlock()
}

func (r *Records) done() {
	r.mu.Lock()
	r.pending--
	if r.pending == 0 {
		close(r.idle)
	}
	r.mu.Unlock()
}

// writeRecordIn writes a record at rel under runDir, creating its folder.
func writeRecordIn(runDir, rel string, data []byte) error {
	path := filepath.Join(runDir, rel)
	if err := runs.MkdirIn(runDir, filepath.Dir(path)); err != nil {
		return err
	}
	return writeRecord(path, data)
}

// encodeInvocation renders the invocation record as one JSON line, the
// same document json.Marshal gives for the invocation struct.
func encodeInvocation(it int, now time.Time, d time.Duration, request json.RawMessage, resp llm.Response, callErr error) ([]byte, error) {
	ts, err := now.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var tail []byte
	if callErr != nil {
		msg, _ := json.Marshal(callErr.Error())
		tail = append([]byte(`,"error":`), msg...)
	} else {
		r, err := json.Marshal(&resp)
		if err != nil {
			return nil, err
		}
		tail = append([]byte(`,"response":`), r...)
	}
	out := make([]byte, 0, len(request)+len(tail)+96)
	out = append(out, `{"iteration":`...)
	out = strconv.AppendInt(out, int64(it), 10)
	out = append(append(out, `,"timestamp":`...), ts...)
	out = strconv.AppendInt(append(out, `,"duration_ms":`...), d.Milliseconds(), 10)
	out = append(append(out, `,"request":`...), request...)
	out = append(append(out, tail...), "}\n"...)
	return out, nil
}
