package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// askArgs are ask_human's arguments.
type askArgs struct {
	Prompt    string `json:"prompt"`
	InputType string `json:"input_type"`
	Sensitive bool   `json:"sensitive"`
}

// askHuman handles one ask_human call in either mode, or completes it on
// resume when its answer is in interaction/response.txt.
func (e *Engine) askHuman(ctx context.Context, it int, call llm.ToolCall, st callState) (*Outcome, error) {
	var a askArgs
	if err := json.Unmarshal([]byte(orEmptyObject(call.Arguments)), &a); err != nil || strings.TrimSpace(a.Prompt) == "" {
		if !st.requested[call.ID] {
			if err := e.append(&journal.Event{Type: journal.ActionRequest, Iteration: it, CallID: call.ID, ToolName: call.Name, ToolArgs: argsJSON(call.Arguments)}); err != nil {
				return nil, err
			}
		}
		return nil, e.result(it, call, ToolOutcome{IsError: true, ExitCode: -1,
			Observation: `error: ask_human needs a JSON object with a non-empty "prompt" string`})
	}
	if a.InputType == "" {
		a.InputType = "text"
	}
	if a.InputType == "password" {
		a.Sensitive = true
	}
	if !st.requested[call.ID] {
		if err := e.append(&journal.Event{Type: journal.ActionRequest, Iteration: it, CallID: call.ID, ToolName: call.Name, ToolArgs: argsJSON(call.Arguments)}); err != nil {
			return nil, err
		}
	}
	// An answer already received (crash between the two events) or waiting
	// in response.txt completes the call.
	if answer, ok := st.received[call.ID]; ok {
		return nil, e.answered(it, call, answer, false)
	}
	if st.asked[call.ID] {
		answer, ok, err := e.readResponse()
		if err != nil {
			return nil, err
		}
		if ok {
			return nil, e.answered(it, call, answer, true)
		}
	}
	if e.answer != "" {
		return nil, e.answerWithMessage(it, call, a, st.asked[call.ID])
	}
	q := Interaction{Prompt: a.Prompt, InputType: a.InputType, Sensitive: a.Sensitive, CallID: call.ID}
	if e.Interactive && e.Asker != nil {
		if !st.asked[call.ID] {
			if err := e.append(&journal.Event{Type: journal.HumanInputRequest, Iteration: it, CallID: call.ID,
				Prompt: a.Prompt, InputType: a.InputType, Sensitive: a.Sensitive}); err != nil {
				return nil, err
			}
		}
		answer, err := e.Asker.Ask(ctx, q)
		if err != nil {
			if ctx.Err() != nil {
				out := e.outcome(runs.Interrupted, &RunError{Type: ErrTypeInterrupted, Message: "interrupted while waiting for the human's answer"})
				return &out, nil
			}
			// No answer can be read (stdin closed): the model learns so.
			return nil, e.result(it, call, ToolOutcome{IsError: true, ExitCode: -1, Observation: "error: no answer from the human: " + err.Error()})
		}
		return nil, e.answered(it, call, answer, true)
	}
	return e.pause(it, call, q, st.asked[call.ID])
}

// pause writes interaction/request.json, journals HUMAN_INPUT_REQUEST (once)
// and stops the run as WAITING_FOR_INPUT.
func (e *Engine) pause(it int, call llm.ToolCall, q Interaction, alreadyAsked bool) (*Outcome, error) {
	return e.pauseWith(it, call, q, alreadyAsked, nil)
}

// pauseWith is pause with more fields in request.json (an approval's tool,
// arguments, command, reason and rule).
func (e *Engine) pauseWith(it int, call llm.ToolCall, q Interaction, alreadyAsked bool, extra map[string]any) (*Outcome, error) {
	q, err := e.writeRequest(call, q, extra)
	if err != nil {
		return nil, err
	}
	if !alreadyAsked {
		if err := e.append(&journal.Event{Type: journal.HumanInputRequest, Iteration: it, CallID: call.ID,
			Prompt: q.Prompt, InputType: q.InputType, Sensitive: q.Sensitive}); err != nil {
			return nil, err
		}
	}
	e.Log.Printf("iteration %d: waiting for human input (call %s)", it, call.ID)
	out := e.outcome(runs.WaitingForInput, nil)
	out.Interaction = &q
	return &out, nil
}

// writeRequest writes interaction/request.json for q (with extra fields)
// and returns q with its request id.
func (e *Engine) writeRequest(call llm.ToolCall, q Interaction, extra map[string]any) (Interaction, error) {
	q.RequestID = newRequestID()
	dir := filepath.Join(e.Run.RunDir, runs.InteractionDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return q, fmt.Errorf("create interaction directory: %w", err)
	}
	doc := map[string]any{"request_id": q.RequestID, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"prompt": q.Prompt, "input_type": q.InputType, "sensitive": q.Sensitive, "call_id": call.ID}
	for k, v := range extra {
		doc[k] = v
	}
	data, _ := json.MarshalIndent(doc, "", "  ")
	if err := writeFileAtomic(filepath.Join(dir, runs.RequestFile), append(data, '\n')); err != nil {
		return q, fmt.Errorf("write interaction request: %w", err)
	}
	return q, nil
}

// answered journals HUMAN_INPUT_RECEIVED (unless already there) and the
// ask_human ACTION_RESULT, then removes the interaction files.
func (e *Engine) answered(it int, call llm.ToolCall, answer string, journalReceived bool) error {
	if journalReceived {
		if err := e.append(&journal.Event{Type: journal.HumanInputReceived, Iteration: it, CallID: call.ID, Response: answer}); err != nil {
			return err
		}
	}
	if err := e.result(it, call, ToolOutcome{Observation: answer}); err != nil {
		return err
	}
	return e.clearInteraction()
}

// answerWithMessage answers an ask_human call left open by an earlier
// invocation with this invocation's message (continue -m on an INTERRUPTED
// run): the question is journaled if it was not, then its answer.
func (e *Engine) answerWithMessage(it int, call llm.ToolCall, a askArgs, asked bool) error {
	answer := e.answer
	e.answer, e.Message = "", ""
	if !asked {
		if err := e.append(&journal.Event{Type: journal.HumanInputRequest, Iteration: it, CallID: call.ID,
			Prompt: a.Prompt, InputType: a.InputType, Sensitive: a.Sensitive}); err != nil {
			return err
		}
	}
	e.Log.Printf("iteration %d: the message of this invocation answers ask_human (call %s)", it, call.ID)
	return e.answered(it, call, answer, true)
}

// readResponse reads interaction/response.txt; ok is false when absent.
func (e *Engine) readResponse() (string, bool, error) {
	data, err := os.ReadFile(filepath.Join(e.Run.RunDir, runs.InteractionDir, runs.ResponseFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read interaction response: %w", err)
	}
	return strings.TrimRight(string(data), "\r\n"), true, nil
}

// newRequestID returns a random UUID v4 text.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// writeFileAtomic writes data to path through a synced temporary file
// and a rename, so readers never see a partial file.
func writeFileAtomic(path string, data []byte) error { return atomicfile.Write(path, data, 0o644) }

// writeRecord is writeFileAtomic without the sync: io/ records are an
// audit trail (the journal is the source of truth), and a sync per record
// would double the engine's cost per iteration.
func writeRecord(path string, data []byte) error { return atomicfile.WriteNoSync(path, data, 0o644) }
