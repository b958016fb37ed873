package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/llm"
	"github.com/deltakit/delta/lib/runs"
)

// ShowCmd prints the next context of a run.
type ShowCmd struct {
	Workspace string `short:"w" name:"workspace" placeholder:"DIR" help:"Workspace holding the run (default: the current directory)."`
	RunID     string `name:"run-id" placeholder:"ID" help:"The run to build the context of (default: the most recent run in the workspace)."`
	Agent     string `name:"agent" placeholder:"DIR" help:"Agent directory (default: the one the run was started with). Required when the workspace has no run."`
	Format    string `enum:"json,text" default:"json" help:"Output format: json (an array of chat messages; an image of a tool result is named by its file under the run directory, in parts) or text (for people; an image is a line saying what and where it is)."`
	Source    string `placeholder:"ID" help:"Only the messages of the context source with this id."`
	JQ        string `name:"jq" placeholder:"FILTER" help:"Post-process the JSON output with this jq filter (gojq)."`
	Tokens    bool   `help:"Print a token estimate (4 characters per token) per source and in total instead of the messages."`
}

// Run builds and prints the context.
func (c *ShowCmd) Run(std cli.Stdio) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, conv, err := c.runInfo()
	if err != nil {
		return err
	}
	for _, w := range run.Agent.Warnings {
		fmt.Fprintln(std.Err, w)
	}
	// The journal was read to find the run: journal sources use the
	// conversation built then rather than a second read of the file.
	// The conversation's messages are printed in the pieces they were
	// built in (Pieces), never copied into one slice.
	b := contextgen.New()
	b.Journal, b.Pieces = conv, true
	parts, err := b.BuildParts(ctx, run)
	if err != nil {
		if ctx.Err() != nil {
			return cli.WithCode(runs.ExitInterrupted, "", err)
		}
		return err
	}
	if c.Source != "" {
		parts, err = onlySource(parts, c.Source)
		if err != nil {
			return err
		}
	}
	if c.Tokens {
		return c.printTokens(std.Out, parts)
	}
	switch {
	case c.JQ != "":
		return printJQ(std.Out, c.JQ, messagesOf(parts))
	case c.Format == "text":
		return printText(std.Out, messagesOf(parts))
	}
	// Each part's messages printed in turn: joining a long conversation's
	// into one slice first is a copy of them all.
	n := 0
	for _, p := range parts {
		n += 1 + len(p.Pieces)
	}
	lists := make([][]llm.Message, 0, n)
	for _, p := range parts {
		lists = append(lists, p.Messages)
		lists = append(lists, p.Pieces...)
	}
	return printMessages(std.Out, lists...)
}

// messagesOf joins the messages of parts (an empty list, not nil, when
// there are none); a single part's are used as they are, not copied.
func messagesOf(parts []contextgen.Part) []llm.Message {
	n := 0
	for i := range parts {
		n += parts[i].Len()
	}
	if n == 0 {
		return []llm.Message{}
	}
	for i := range parts {
		if parts[i].Len() == n {
			return parts[i].All()
		}
	}
	msgs := make([]llm.Message, 0, n)
	for i := range parts {
		msgs = append(msgs, parts[i].All()...)
	}
	return msgs
}

// runInfo finds the run and loads its agent, as delta-run would, and
// returns the run's conversation (nil without a run).
func (c *ShowCmd) runInfo() (engine.RunInfo, *contextgen.Stream, error) {
	ws := c.Workspace
	if ws == "" {
		ws = "."
	}
	ws, err := filepath.Abs(ws)
	if err != nil {
		return engine.RunInfo{}, nil, err
	}
	ref, found, err := findRun(ws, c.RunID)
	if err != nil {
		return engine.RunInfo{}, nil, err
	}
	home := c.Agent
	if home == "" {
		home = ref.AgentHome
	}
	if home == "" {
		if !found {
			return engine.RunInfo{}, nil, cli.Errorf(cli.ExitUsage, "name the agent with --agent DIR to build a context without a run",
				"no run in %s", ws)
		}
		return engine.RunInfo{}, nil, cli.Errorf(cli.ExitUsage, "name the agent with --agent DIR", "run %q does not record its agent", ref.ID)
	}
	a, err := agent.Load(home)
	if err != nil {
		return engine.RunInfo{}, nil, cli.WithCode(runs.ExitConfig, agent.HintOf(err), fmt.Errorf("load agent: %w", err))
	}
	run := engine.RunInfo{AgentHome: a.Home, WorkDir: ws, Agent: a, Iteration: 1}
	if found {
		run.RunID, run.RunDir, run.JournalPath, run.WorkDir = ref.ID, ref.Dir, ref.Journal, ref.WorkDir
		run.Iteration = ref.Thoughts + 1
		// The model the run talks to (--llm, an alias) as it was resolved.
		if ref.Model != "" {
			a.LLM.Provider, a.LLM.Model = ref.Provider, ref.Model
		}
	}
	return run, ref.Conversation, nil
}

func onlySource(parts []contextgen.Part, id string) ([]contextgen.Part, error) {
	var ids []string
	for _, p := range parts {
		if p.Source.ID == id {
			return []contextgen.Part{p}, nil
		}
		if p.Source.ID != "" {
			ids = append(ids, p.Source.ID)
		}
	}
	return nil, cli.Errorf(cli.ExitUsage, "the sources with an id are: "+strings.Join(ids, ", "), "no context source with id %q", id)
}

// tokenReport is the JSON of --tokens.
type tokenReport struct {
	Sources []sourceTokens `json:"sources"`
	Total   int            `json:"total"`
}

type sourceTokens struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Messages  int    `json:"messages"`
	Tokens    int    `json:"tokens"`
	Truncated bool   `json:"truncated,omitempty"`
	Skipped   bool   `json:"skipped,omitempty"`
}

func (c *ShowCmd) printTokens(w io.Writer, parts []contextgen.Part) error {
	rep := tokenReport{Sources: []sourceTokens{}}
	for _, p := range parts {
		id := p.Source.ID
		if id == "" {
			id = fmt.Sprintf("#%d", p.Source.Index+1)
		}
		rep.Sources = append(rep.Sources, sourceTokens{ID: id, Type: p.Source.Type, Messages: p.Len(),
			Tokens: p.Tokens, Truncated: p.Truncated, Skipped: p.Skipped})
		rep.Total += p.Tokens
	}
	if c.JQ != "" {
		return printJQ(w, c.JQ, rep)
	}
	if c.Format == "json" {
		return printJSON(w, rep)
	}
	fmt.Fprintf(w, "%-24s %-14s %8s %8s\n", "SOURCE", "TYPE", "MESSAGES", "TOKENS")
	for _, s := range rep.Sources {
		note := ""
		switch {
		case s.Skipped:
			note = "  (skipped: missing)"
		case s.Truncated:
			note = "  (truncated)"
		}
		fmt.Fprintf(w, "%-24s %-14s %8d %8d%s\n", s.ID, s.Type, s.Messages, s.Tokens, note)
	}
	fmt.Fprintf(w, "%-24s %-14s %8s %8d\n", "total", "", "", rep.Total)
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printMessages prints the messages of lists, one after the other, exactly
// as printJSON prints them joined (the test holds it to that), writing the
// indented JSON directly in 32 KB writes: for a long conversation,
// encoding and then re-indenting the whole array costs more than building
// the rest of the context.
func printMessages(w io.Writer, lists ...[]llm.Message) error {
	b := make([]byte, 0, 40<<10)
	b = append(b, '[')
	first := true
	for _, msgs := range lists {
		for i := range msgs {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '\n')
			b = appendMessage(b, &msgs[i])
			if len(b) > 32<<10 {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
	}
	if !first {
		b = append(b, '\n')
	}
	b = append(b, "]\n"...)
	_, err := w.Write(b)
	return err
}

// appendMessage appends m as an element of printJSON's indented array.
func appendMessage(b []byte, m *llm.Message) []byte {
	b = append(b, "  {\n    \"role\": "...)
	b = appendString(b, m.Role)
	b = append(b, ",\n    \"content\": "...)
	b = appendString(b, m.Content)
	if len(m.Parts) > 0 {
		b = appendParts(b, m.Parts)
	}
	if len(m.ToolCalls) > 0 {
		b = append(b, ",\n    \"tool_calls\": ["...)
		for i, tc := range m.ToolCalls {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n      {\n        \"id\": "...)
			b = appendString(b, tc.ID)
			b = append(b, ",\n        \"name\": "...)
			b = appendString(b, tc.Name)
			b = append(b, ",\n        \"arguments\": "...)
			b = appendString(b, tc.Arguments)
			b = append(b, "\n      }"...)
		}
		b = append(b, "\n    ]"...)
	}
	if m.ToolCallID != "" {
		b = append(b, ",\n    \"tool_call_id\": "...)
		b = appendString(b, m.ToolCallID)
	}
	if m.Name != "" {
		b = append(b, ",\n    \"name\": "...)
		b = appendString(b, m.Name)
	}
	if m.IsError {
		b = append(b, ",\n    \"is_error\": true"...)
	}
	if len(m.Reasoning) > 0 {
		b = appendReasoning(b, m.Reasoning)
	}
	return append(b, "\n  }"...)
}

// appendParts appends a message's parts field as printJSON indents it:
// a part kept in a file is named by its path, without its data
// (llm.Part's JSON).
func appendParts(b []byte, ps []llm.Part) []byte {
	b = append(b, ",\n    \"parts\": ["...)
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n      {\n        \"type\": "...)
		b = appendString(b, p.Type)
		b = append(b, ",\n        \"media_type\": "...)
		b = appendString(b, p.MediaType)
		if len(p.Data) > 0 && p.Path == "" {
			b = append(b, ",\n        \"data\": \""...)
			b = base64.StdEncoding.AppendEncode(b, p.Data)
			b = append(b, '"')
		}
		if p.Path != "" {
			b = append(b, ",\n        \"path\": "...)
			b = appendString(b, p.Path)
		}
		if p.Size != 0 {
			b = strconv.AppendInt(append(b, ",\n        \"bytes\": "...), p.Size, 10)
		}
		b = append(b, "\n      }"...)
	}
	return append(b, "\n    ]"...)
}

// appendReasoning appends a message's reasoning field as printJSON indents
// it (llm.Reasoning's fields in order, empty ones left out).
func appendReasoning(b []byte, rs []llm.Reasoning) []byte {
	b = append(b, ",\n    \"reasoning\": ["...)
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n      {\n        \"type\": "...)
		b = appendString(b, r.Type)
		for _, f := range [...]struct{ key, val string }{{"text", r.Text}, {"signature", r.Signature}, {"data", r.Data}, {"id", r.ID}} {
			if f.val != "" {
				b = append(b, ",\n        \""+f.key+"\": "...)
				b = appendString(b, f.val)
			}
		}
		b = append(b, "\n      }"...)
	}
	return append(b, "\n    ]"...)
}

// appendString appends s as a JSON string the way encoding/json writes it
// with HTML escaping off: control characters escaped, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// printJQ runs filter over v's JSON and prints each result as indented
// JSON, like jq does.
func printJQ(w io.Writer, filter string, v any) error {
	q, err := gojq.Parse(filter)
	if err != nil {
		return cli.Errorf(cli.ExitUsage, "", "parse --jq filter: %v", err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var input any
	if err := json.Unmarshal(data, &input); err != nil {
		return err
	}
	iter := q.Run(input)
	for {
		out, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := out.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return fmt.Errorf("--jq filter: %w", err)
		}
		if err := printJSON(w, out); err != nil {
			return err
		}
	}
}

// printText renders messages for people: a header line per message, then
// its content, tool calls and results.
func printText(w io.Writer, msgs []llm.Message) error {
	for i, m := range msgs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		head := "=== " + m.Role
		switch {
		case m.Name != "":
			head += " (" + m.Name + ")"
		case m.ToolCallID != "":
			head += " (" + m.ToolCallID + ")"
		}
		fmt.Fprintln(w, head+" ===")
		if m.Content != "" {
			fmt.Fprintln(w, strings.TrimRight(m.Content, "\n"))
		}
		// An image is its line here: the JSON output names its file.
		for _, p := range m.Parts {
			fmt.Fprintln(w, p.Placeholder())
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(w, "-> %s %s [%s]\n", tc.Name, tc.Arguments, tc.ID)
		}
	}
	return nil
}
