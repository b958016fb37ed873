package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/itchyny/gojq"

	"github.com/deltakit/delta/contextgen"
	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// ShowCmd prints the next context of a run.
type ShowCmd struct {
	Workspace string `short:"w" name:"workspace" placeholder:"DIR" help:"Workspace holding the run (default: the current directory)."`
	RunID     string `name:"run-id" placeholder:"ID" help:"The run to build the context of (default: the most recent run in the workspace)."`
	Agent     string `name:"agent" placeholder:"DIR" help:"Agent directory (default: the one the run was started with). Required when the workspace has no run."`
	Format    string `enum:"json,text" default:"json" help:"Output format: json (an array of chat messages) or text (for people)."`
	Source    string `placeholder:"ID" help:"Only the messages of the context source with this id."`
	JQ        string `name:"jq" placeholder:"FILTER" help:"Post-process the JSON output with this jq filter (gojq)."`
	Tokens    bool   `help:"Print a token estimate (4 characters per token) per source and in total instead of the messages."`
}

// Run builds and prints the context.
func (c *ShowCmd) Run(kctx *kong.Context) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, err := c.runInfo()
	if err != nil {
		return err
	}
	for _, w := range run.Agent.Warnings {
		fmt.Fprintln(kctx.Stderr, w)
	}
	parts, err := contextgen.New().BuildParts(ctx, run)
	if err != nil {
		if ctx.Err() != nil {
			return cli.WithCode(cli.ExitInterrupted, "", err)
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
		return c.printTokens(kctx.Stdout, parts)
	}
	var msgs []llm.Message
	for _, p := range parts {
		msgs = append(msgs, p.Messages...)
	}
	if msgs == nil {
		msgs = []llm.Message{}
	}
	if c.JQ != "" {
		return printJQ(kctx.Stdout, c.JQ, msgs)
	}
	if c.Format == "text" {
		return printText(kctx.Stdout, msgs)
	}
	return printMessages(kctx.Stdout, msgs)
}

// runInfo finds the run and loads its agent, as delta-run would.
func (c *ShowCmd) runInfo() (engine.RunInfo, error) {
	ws := c.Workspace
	if ws == "" {
		ws = "."
	}
	ws, err := filepath.Abs(ws)
	if err != nil {
		return engine.RunInfo{}, err
	}
	ref, found, err := findRun(ws, c.RunID)
	if err != nil {
		return engine.RunInfo{}, err
	}
	home := c.Agent
	if home == "" {
		home = ref.AgentHome
	}
	if home == "" {
		if !found {
			return engine.RunInfo{}, cli.Errorf(cli.ExitUsage, "name the agent with --agent DIR to build a context without a run",
				"no run in %s", ws)
		}
		return engine.RunInfo{}, cli.Errorf(cli.ExitUsage, "name the agent with --agent DIR", "run %q does not record its agent", ref.ID)
	}
	a, err := agent.Load(home)
	if err != nil {
		return engine.RunInfo{}, cli.WithCode(cli.ExitConfig, loadHint(err), fmt.Errorf("load agent: %w", err))
	}
	run := engine.RunInfo{AgentHome: a.Home, WorkDir: ws, Agent: a, Iteration: 1}
	if found {
		run.RunID, run.RunDir, run.JournalPath, run.WorkDir = ref.ID, ref.Dir, ref.Journal, ref.WorkDir
		run.Iteration = thoughts(ref.Events) + 1
		// The journal was read to find the run: the context is built from
		// those events rather than from a second read of the file.
		events := ref.Events
		run.Events = func() ([]journal.Event, error) { return events, nil }
	}
	return run, nil
}

func loadHint(err error) string {
	var le *agent.LoadError
	if errors.As(err, &le) {
		return strings.Join(le.Hints(), "; ")
	}
	return ""
}

func thoughts(events []journal.Event) int {
	n := 0
	for _, ev := range events {
		if ev.Type == journal.Thought {
			n++
		}
	}
	return n
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
		rep.Sources = append(rep.Sources, sourceTokens{ID: id, Type: p.Source.Type, Messages: len(p.Messages),
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

// printMessages prints msgs exactly as printJSON does, one message at a
// time through a buffered writer, so that a long conversation is not held
// twice more in memory (encoded, then indented) before it is written.
func printMessages(w io.Writer, msgs []llm.Message) error {
	if len(msgs) == 0 {
		return printJSON(w, msgs)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	bw.WriteString("[\n  ")
	for i := range msgs {
		if i > 0 {
			bw.WriteString(",\n  ")
		}
		buf.Reset()
		if err := enc.Encode(&msgs[i]); err != nil {
			return err
		}
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
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
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(w, "-> %s %s [%s]\n", tc.Name, tc.Arguments, tc.ID)
		}
	}
	return nil
}
