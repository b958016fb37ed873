package engine

import (
	"encoding/json"
	"fmt"
	"log"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/redact"
	"github.com/deltakit/delta/lib/runs"
)

// Record directories under the run directory (lib/runs names them).
const (
	InvocationsDir    = runs.InvocationsDir
	ToolExecutionsDir = runs.ToolExecutionsDir
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

// invocationRecord returns the record of one model call and its path
// relative to runDir ("{timestamp}_{iteration}.json", seeds/000 §1.2).
// request is the request already encoded as JSON (the engine encodes it
// once, for hooks and this record): the record is put together around it
// rather than encoded again, which would cost as much as the rest of an
// iteration on a long conversation.
func invocationRecord(it int, request json.RawMessage, resp llm.Response, callErr error, d time.Duration) (string, []byte, error) {
	now := time.Now().UTC()
	data, err := encodeInvocation(it, now, d, request, resp, callErr)
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(InvocationsDir, fmt.Sprintf("%s_%d.json", now.Format("20060102T150405.000000000Z"), it)), data, nil
}

// ToolRecordBase names the record of one tool call, under
// ToolExecutionsDir: the start time, the tool and the call id, so records
// sort in time and say what they hold. Command and plugin tools share it.
func ToolRecordBase(started time.Time, tool, callID string) string {
	return fmt.Sprintf("%s_%s_%s", started.UTC().Format("20060102T150405.000000000Z"), safeName(tool), safeName(callID))
}

// RecordInlineMax is the largest output stream a tool record keeps inline
// (stdout, stderr); a longer one goes to a log beside the record
// (stdout_file, stderr_file). Command and plugin tools share it.
const RecordInlineMax = execute.DefaultMaxCapture

// WriteToolRecord writes a tool call's record (rec as indented JSON) as
// ToolExecutionsDir/BASE.json under run.RunDir and returns its path
// relative to it. Under an engine (run.Records set) the record is redacted
// and written behind (Records); otherwise, as for delta mcp serve, it is
// written before WriteToolRecord returns. Command, plugin, MCP, subagent
// and workflow tools all write theirs here.
func WriteToolRecord(run RunInfo, base string, rec any) (string, error) {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode tool execution record: %w", err)
	}
	rel := filepath.Join(ToolExecutionsDir, base+".json")
	data = append(data, '\n')
	if run.Records != nil {
		run.Records.write(rel, data, true)
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
	wg     sync.WaitGroup
	hold   chan struct{} // tests: every write waits until it is closed
}

// write writes data (a JSON record) at rel in the background; with
// hide, its strings are redacted first.
func (r *Records) write(rel string, data []byte, hide bool) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if r.hold != nil {
			<-r.hold
		}
		if hide && r.redact != nil {
			data, _ = redactJSON(r.redact, data)
		}
		if err := writeRecordIn(r.runDir, rel, data); err != nil {
			r.log.Printf("write record %s: %v", rel, err)
		}
	}()
}

// Wait returns once every record handed over so far is written.
func (r *Records) Wait() { r.wg.Wait() }

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
