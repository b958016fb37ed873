package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/observe"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// canElicit reports whether the client of ss declared the elicitation
// capability (form elicitation: a question with fields to fill in).
func canElicit(ss *sdk.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	c := p.Capabilities.Elicitation
	return c.Form != nil || c.URL == nil // neither set means form (the spec's older form)
}

// elicitAsker asks the MCP client's user to approve a call, through MCP
// elicitation: the engine's Asker for delta mcp serve.
type elicitAsker struct{ ss *sdk.ServerSession }

// approvalSchema is the form of an approval question.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"approve":{"type":"boolean","title":"Approve","description":"Run this tool call"},` +
	`"reason":{"type":"string","title":"Reason","description":"Why not (told to the caller when you deny)"}},` +
	`"required":["approve"]}`)

// Ask returns the answer as the engine reads it: "approved", or
// "denied: REASON".
func (a elicitAsker) Ask(ctx context.Context, q engine.Interaction) (string, error) {
	res, err := a.ss.Elicit(ctx, &sdk.ElicitParams{Message: "Delta: " + q.Prompt, RequestedSchema: approvalSchema})
	if err != nil {
		return "", err
	}
	switch res.Action {
	case "accept":
		if ok, _ := res.Content["approve"].(bool); ok {
			return "approved", nil
		}
		if reason, _ := res.Content["reason"].(string); strings.TrimSpace(reason) != "" {
			return "denied: " + reason, nil
		}
		return "denied", nil
	case "decline":
		return "denied: the MCP client's user declined", nil
	default:
		return "denied: the MCP client's user dismissed the question", nil
	}
}

// clientText is what the client gets of a call's outcome: its observation,
// and empty text for a call that printed nothing (the model of a run reads
// a marker there instead).
func clientText(out engine.ToolOutcome) string {
	if out.Observation == observe.NoOutput && out.Stdout == "" && !out.IsError {
		return ""
	}
	return out.Observation
}

// StdioTransport is delta mcp serve's transport over in and out: the MCP
// SDK's, newline-delimited JSON-RPC, except that a line that is not a
// JSON-RPC message is answered with an error (-32700 parse error for a
// line that is not JSON, -32600 invalid request for one that is JSON but
// no message) and the server reads on; the SDK's own would stop the
// server with a raw Go error.
func StdioTransport(in io.Reader, out io.Writer) sdk.Transport {
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(filterMessages(in, pw, w)) }()
	return &sdk.IOTransport{Reader: pr, Writer: w}
}

// lineWriter is out shared by the SDK's connection and the error replies
// of filterMessages: each Write (one whole message) at a time.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves out open: the process's stdout is closed when it exits.
func (l *lineWriter) Close() error { return nil }

// filterMessages copies the JSON-RPC messages of in, one a line, to pass,
// and answers every other non-empty line on reply; it returns at the end
// of in (nil) or when pass is closed.
func filterMessages(in io.Reader, pass io.Writer, reply io.Writer) error {
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if werr := forward(msg, pass, reply); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// forward passes one line on, or answers it with an error.
func forward(msg []byte, pass, reply io.Writer) error {
	code, text := 0, ""
	switch {
	case !json.Valid(msg):
		code, text = -32700, "parse error: the line is not JSON (each message is one line of JSON-RPC 2.0)"
	case msg[0] == '[':
		// A batch: the SDK answers it (or refuses it for the protocol).
	default:
		if _, err := jsonrpc.DecodeMessage(msg); err != nil {
			code, text = -32600, "invalid request: "+err.Error()
		}
	}
	if code == 0 {
		_, err := pass.Write(append(msg, '\n'))
		return err
	}
	var id struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &id) != nil || len(id.ID) == 0 {
		id.ID = json.RawMessage("null")
	}
	resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id.ID, "error": map[string]any{"code": code, "message": text}})
	_, err := reply.Write(append(resp, '\n'))
	return err
}
