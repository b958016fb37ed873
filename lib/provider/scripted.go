package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/deltakit/delta/lib/llm"
	"gopkg.in/yaml.v3"
)

// ErrScriptExhausted is matched (errors.Is) by the error the scripted
// provider returns when a run asks for more turns than its file holds.
var ErrScriptExhausted = errors.New("scripted provider: script exhausted")

// ErrBadScript is matched by every error about a malformed script file.
var ErrBadScript = errors.New("invalid script")

// ExhaustedError says which turn was asked for and how many the file has.
type ExhaustedError struct {
	File  string
	Turn  int
	Turns int
}

func (e *ExhaustedError) Error() string {
	// Turns are counted from 1 in messages, like iterations: request
	// Turn 0 is the first turn, asked for by iteration 1.
	return fmt.Sprintf("scripted provider: no turn %d in %s (it has %d; iteration N replays turn N)", e.Turn+1, e.File, e.Turns)
}

// Is makes errors.Is(err, ErrScriptExhausted) true.
func (e *ExhaustedError) Is(target error) bool { return target == ErrScriptExhausted }

// Scripted replays the turns of a YAML file: turn N of a run gets the
// file's N-th answer. It keeps no state, so a resumed run continues where
// its journal left off.
type Scripted struct {
	file  string
	turns []llm.Response
}

// scriptFile is the on-disk shape, decoded strictly.
type scriptFile struct {
	Turns []scriptTurn `yaml:"turns"`
}

type scriptTurn struct {
	Content   string       `yaml:"content"`
	ToolCalls []scriptCall `yaml:"tool_calls"`
	Usage     *scriptUsage `yaml:"usage"`
}

type scriptCall struct {
	Name string    `yaml:"name"`
	Args yaml.Node `yaml:"args"`
}

type scriptUsage struct {
	InputTokens  int64 `yaml:"input_tokens"`
	OutputTokens int64 `yaml:"output_tokens"`
}

// NewScripted loads the script at path, a YAML file of the model's turns:
//
//	turns:
//	  - content: "I'll write the greeting."   # optional text
//	    tool_calls:                            # optional calls
//	      - name: write_file
//	        args: {path: hello.txt, content: "Hello, world"}
//	    usage: {input_tokens: 120, output_tokens: 9}   # optional
//	  - content: "Done: hello.txt written."    # text only: the run ends
//
// Turn N of a run (N = THOUGHT events already journaled, Request.Turn)
// gets the N-th entry; tool call ids are call_<turn>_<index>. Without a
// usage entry tokens are estimated as characters/4. Asking past the last
// turn fails with ErrScriptExhausted. On the command line this is
// --llm scripted:FILE.
func NewScripted(path string) (llm.Provider, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scripted provider: %w", err)
	}
	turns, err := ParseScript(data)
	if err != nil {
		return nil, fmt.Errorf("scripted provider: %s: %w", path, err)
	}
	return &Scripted{file: path, turns: turns}, nil
}

// ParseScript decodes a script file's bytes into the responses it replays.
// Unknown keys, wrong types and empty turns are errors naming their line.
func ParseScript(data []byte) ([]llm.Response, error) {
	var f scriptFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: file is empty (want a turns: list)", ErrBadScript)
		}
		return nil, fmt.Errorf("%w: %v", ErrBadScript, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: more than one YAML document", ErrBadScript)
	}
	if len(f.Turns) == 0 {
		return nil, fmt.Errorf("%w: no turns (want a turns: list)", ErrBadScript)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadScript, err)
	}
	turnNodes := turnsNodes(&doc)
	out := make([]llm.Response, len(f.Turns))
	for i, t := range f.Turns {
		line := 0
		if i < len(turnNodes) {
			line = turnNodes[i].Line
		}
		r, err := t.response(i, line)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadScript, err)
		}
		out[i] = r
	}
	return out, nil
}

// turnsNodes returns the sequence items under the top-level turns key.
func turnsNodes(doc *yaml.Node) []*yaml.Node {
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "turns" {
			return root.Content[i+1].Content
		}
	}
	return nil
}

func (t scriptTurn) response(i, line int) (llm.Response, error) {
	if t.Content == "" && len(t.ToolCalls) == 0 {
		return llm.Response{}, fmt.Errorf("line %d: turn %d has neither content nor tool_calls", line, i+1)
	}
	r := llm.Response{Content: t.Content, FinishReason: "stop"}
	for j, c := range t.ToolCalls {
		if c.Name == "" {
			return llm.Response{}, fmt.Errorf("line %d: turn %d tool call %d has no name", line, i+1, j+1)
		}
		args, err := argsJSON(&c.Args)
		if err != nil {
			return llm.Response{}, fmt.Errorf("line %d: turn %d tool call %q: %v", c.Args.Line, i+1, c.Name, err)
		}
		r.ToolCalls = append(r.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("call_%d_%d", i, j), Name: c.Name, Arguments: args})
	}
	if len(r.ToolCalls) > 0 {
		r.FinishReason = "tool_calls"
	}
	if u := t.Usage; u != nil {
		if u.InputTokens < 0 || u.OutputTokens < 0 {
			return llm.Response{}, fmt.Errorf("line %d: turn %d usage must not be negative", line, i+1)
		}
		r.Usage = llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	}
	return r, nil
}

// argsJSON turns a YAML mapping (or nothing) into a JSON object text.
func argsJSON(n *yaml.Node) (string, error) {
	if n.Kind == 0 {
		return "{}", nil
	}
	if n.Kind != yaml.MappingNode {
		return "", fmt.Errorf("args must be a mapping")
	}
	var v map[string]any
	if err := n.Decode(&v); err != nil {
		return "", fmt.Errorf("args: %v", err)
	}
	// Arguments are shown to people and tools as written: no \u0026 for &.
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("args cannot be JSON (keys must be strings): %v", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// Complete answers with the script's turn req.Turn.
func (s *Scripted) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	if req.Turn < 0 || req.Turn >= len(s.turns) {
		return llm.Response{}, &ExhaustedError{File: s.file, Turn: req.Turn, Turns: len(s.turns)}
	}
	r := s.turns[req.Turn]
	r.ToolCalls = append([]llm.ToolCall(nil), r.ToolCalls...)
	r.Model = req.Params.Model
	if r.Model == "" {
		r.Model = "scripted"
	}
	if r.Usage == (llm.Usage{}) {
		r.Usage = estimateUsage(req, r)
	}
	return r, nil
}

// Turns reports how many turns the script holds.
func (s *Scripted) Turns() int { return len(s.turns) }

// estimateUsage approximates tokens as characters/4 (seeds/001 §5) so
// metrics of scripted runs are not zero.
func estimateUsage(req llm.Request, r llm.Response) llm.Usage {
	in := 0
	for _, m := range req.Messages {
		in += len(m.Content)
		for _, c := range m.ToolCalls {
			in += len(c.Name) + len(c.Arguments)
		}
	}
	for _, t := range req.Tools {
		in += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	out := len(r.Content)
	for _, c := range r.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	return llm.Usage{InputTokens: int64(max(1, in/4)), OutputTokens: int64(max(1, out/4))}
}
