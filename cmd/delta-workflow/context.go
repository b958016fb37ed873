package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow/board"
	"github.com/deltakit/delta/workflow/board/mcpserver"
)

// ContextCmds are the shared-context subcommands: the agent tools
// (channel_send, inbox_check, document_write, vote, …) for scripts and
// people, and the MCP server of the same tools. Each calls the one
// implementation, board.Tools, with the caller's identity.
type ContextCmds struct {
	Channel  ChannelCmds  `cmd:"" help:"Send to and read the instance's channel (channel_send, channel_read, channel_peek)."`
	Inbox    InboxCmds    `cmd:"" help:"An agent's inbox: its unread messages that @mention it (inbox_check, inbox_ack)."`
	Document DocumentCmds `cmd:"" help:"The shared documents (document_read, document_write, document_append, document_list, document_create, document_delete, document_suggest)."`
	Proposal ProposalCmds `cmd:"" help:"Proposals and votes (proposal_create, vote, proposal_status, proposal_cancel)."`
	MCP      MCPCmd       `cmd:"" name:"mcp" help:"Serve the workflow tools over MCP on stdin/stdout, as one agent, for agents that are other programs."`
}

// ChannelCmds are the channel subcommands.
type ChannelCmds struct {
	Send ChannelSendCmd `cmd:"" help:"Post a message (channel_send); @mentions wake the agents they name."`
	Read ChannelReadCmd `cmd:"" help:"Print channel entries, oldest first, as JSON (channel_read); acknowledges nothing."`
	Peek ChannelPeekCmd `cmd:"" help:"Print the last entries as JSON (channel_peek, default 20)."`
}

// InboxCmds are the inbox subcommands.
type InboxCmds struct {
	Check InboxCheckCmd `cmd:"" help:"Print the unread messages that mention --as, with seq and priority, as JSON (inbox_check); acknowledges nothing."`
	Ack   InboxAckCmd   `cmd:"" help:"Mark --as's inbox read up to a message (inbox_ack)."`
}

// DocumentCmds are the document subcommands.
type DocumentCmds struct {
	Read    DocumentReadCmd    `cmd:"" help:"Print a document (document_read; default the entry document)."`
	Write   DocumentWriteCmd   `cmd:"" help:"Replace a document's content (document_write); the document owner only, when there is one."`
	Append  DocumentAppendCmd  `cmd:"" help:"Append to a document (document_append)."`
	List    DocumentListCmd    `cmd:"" help:"List the documents as JSON (document_list)."`
	Create  DocumentCreateCmd  `cmd:"" help:"Create a document that does not exist yet (document_create); folders are made as needed."`
	Delete  DocumentDeleteCmd  `cmd:"" help:"Delete a document (document_delete)."`
	Suggest DocumentSuggestCmd `cmd:"" help:"Suggest a change to the document owner through the channel (document_suggest)."`
}

// ProposalCmds are the proposal subcommands.
type ProposalCmds struct {
	Create ProposalCreateCmd `cmd:"" help:"Open a proposal (proposal_create) and print it as JSON; it is announced on the channel."`
	Vote   ProposalVoteCmd   `cmd:"" help:"Vote on a proposal (vote). Votes are final; the same vote again is harmless. Only the agents' votes count toward the quorum; anyone else's (user, a script) is recorded and counted in the result."`
	Status ProposalStatusCmd `cmd:"" help:"Print a proposal, or every active one, as JSON (proposal_status)."`
	Cancel ProposalCancelCmd `cmd:"" help:"Cancel a proposal you created (proposal_cancel)."`
}

// where finds the instance and names the caller.
type where struct {
	Instance string `default:"default" help:"The instance (its context is .workflow/INSTANCE/ here)." placeholder:"NAME"`
	Dir      string `help:"The instance's context directory (overrides --instance)." type:"path" placeholder:"DIR"`
	As       string `default:"user" help:"Who is acting: an agent's name, or user (the default) for a person." placeholder:"NAME"`
	clusterBoard
}

// call runs one workflow tool as w.As and prints its result.
func (w where) call(std cli.Stdio, tool string, args map[string]any) error {
	text, err := w.result(tool, args)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(std.Out, strings.TrimRight(text, "\n"))
	return err
}

// result runs one workflow tool as w.As and returns its text.
func (w where) result(tool string, args map[string]any) (string, error) {
	if !board.ValidName(w.As) {
		return "", cli.Errorf(cli.ExitUsage, "", "invalid --as %q: a letter, then letters, digits, _ or -", w.As)
	}
	p, err := openBoard(w.clusterBoard, w.Dir, w.Instance)
	if err != nil {
		return "", err
	}
	defer p.Close()
	raw, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	text, err := board.NewTools(p).Call(context.Background(), w.As, tool, raw)
	var te *board.ToolError
	if errors.As(err, &te) {
		return "", cli.WithCode(runs.ExitFailed, board.RefusalHint(err), te)
	}
	return text, err
}

// text reads a message or a document's content: the argument itself, a
// file (-f, - for stdin), or stdin when neither is given and stdinDefault
// is set. read says whether it came from a file or stdin.
func text(std cli.Stdio, arg, file string, stdinDefault bool) (s string, read bool, err error) {
	switch {
	case arg != "" && file != "":
		return "", false, cli.Errorf(cli.ExitUsage, "", "give the text or -f FILE, not both")
	case arg == "-" || file == "-" || (arg == "" && file == "" && stdinDefault):
		b, err := io.ReadAll(std.In)
		return string(b), true, err
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", false, cli.WithCode(runs.ExitFailed, "", err)
		}
		return string(b), true, nil
	}
	return arg, arg != "", nil
}

// Channel

// ChannelSendCmd posts a message.
type ChannelSendCmd struct {
	where
	Message string `arg:"" optional:"" help:"The message (- or -f FILE to read it)."`
	File    string `short:"f" help:"Read the message from FILE (- for stdin)." type:"path" placeholder:"FILE"`
	From    string `help:"Who the message is from (the same as --as)." placeholder:"NAME"`
}

// Run posts the message.
func (c *ChannelSendCmd) Run(std cli.Stdio) error {
	msg, read, err := text(std, c.Message, c.File, false)
	if err != nil {
		return err
	}
	if read {
		msg = strings.TrimRight(msg, "\n") // echo … | send -f -
	}
	if strings.TrimSpace(msg) == "" {
		return cli.Errorf(cli.ExitUsage, `delta workflow channel send "@reviewer please look" --instance NAME`, "the message is empty or missing")
	}
	if c.From != "" {
		c.As = c.From
	}
	return c.call(std, "channel_send", map[string]any{"message": msg})
}

// ChannelReadCmd prints channel entries.
type ChannelReadCmd struct {
	where
	Since string `help:"Only entries after this seq number or RFC 3339 time." placeholder:"SEQ|TIME"`
	Limit int    `short:"n" help:"Only the last N entries." placeholder:"N"`
}

// Run prints the entries.
func (c *ChannelReadCmd) Run(std cli.Stdio) error {
	args := map[string]any{}
	if c.Since != "" {
		args["since"] = c.Since
	}
	if c.Limit > 0 {
		args["limit"] = c.Limit
	}
	return c.call(std, "channel_read", args)
}

// ChannelPeekCmd prints the last entries.
type ChannelPeekCmd struct {
	where
	Limit int `short:"n" default:"20" help:"How many entries." placeholder:"N"`
}

// Run prints the entries.
func (c *ChannelPeekCmd) Run(std cli.Stdio) error {
	return c.call(std, "channel_peek", map[string]any{"limit": c.Limit})
}

// Inbox

// InboxCheckCmd prints an inbox.
type InboxCheckCmd struct{ where }

// Run prints the inbox.
func (c *InboxCheckCmd) Run(std cli.Stdio) error { return c.call(std, "inbox_check", map[string]any{}) }

// InboxAckCmd acknowledges an inbox.
type InboxAckCmd struct {
	where
	Until string `arg:"" help:"The seq number (or RFC 3339 time) of the last message handled." placeholder:"SEQ|TIME"`
}

// Run moves the cursor.
func (c *InboxAckCmd) Run(std cli.Stdio) error {
	return c.call(std, "inbox_ack", map[string]any{"until": c.Until})
}

// Documents

// DocumentReadCmd prints a document.
type DocumentReadCmd struct {
	where
	Name string `arg:"" optional:"" help:"The document, relative to the documents folder (default: the entry document)." placeholder:"FILE"`
}

// Run prints the document as it is, without adding a newline.
func (c *DocumentReadCmd) Run(std cli.Stdio) error {
	args := map[string]any{}
	if c.Name != "" {
		args["file"] = c.Name
	}
	content, err := c.result("document_read", args)
	if err != nil {
		return err
	}
	_, err = io.WriteString(std.Out, content)
	return err
}

// DocumentWriteCmd replaces a document.
type DocumentWriteCmd struct {
	where
	Name    string `arg:"" optional:"" help:"The document (default: the entry document)." placeholder:"FILE"`
	Content string `short:"c" help:"The new content (default: read from stdin)."`
	From    string `short:"f" name:"from-file" help:"Read the content from FILE (- for stdin)." type:"path" placeholder:"FILE"`
}

// Run writes the document.
func (c *DocumentWriteCmd) Run(std cli.Stdio) error {
	return c.changeDocument(std, "document_write", c.Name, c.Content, c.From)
}

// changeDocument calls tool (document_write, document_append) with the
// text of -c or -f (default: stdin) for the document name (default: the
// entry document).
func (w where) changeDocument(std cli.Stdio, tool, name, content, from string) error {
	content, _, err := text(std, content, from, content == "")
	if err != nil {
		return err
	}
	args := map[string]any{"content": content}
	if name != "" {
		args["file"] = name
	}
	return w.call(std, tool, args)
}

// DocumentAppendCmd appends to a document.
type DocumentAppendCmd struct {
	where
	Name    string `arg:"" optional:"" help:"The document (default: the entry document)." placeholder:"FILE"`
	Content string `short:"c" help:"The text to append (default: read from stdin)."`
	From    string `short:"f" name:"from-file" help:"Read the text from FILE (- for stdin)." type:"path" placeholder:"FILE"`
}

// Run appends.
func (c *DocumentAppendCmd) Run(std cli.Stdio) error {
	return c.changeDocument(std, "document_append", c.Name, c.Content, c.From)
}

// DocumentListCmd lists documents.
type DocumentListCmd struct{ where }

// Run lists them.
func (c *DocumentListCmd) Run(std cli.Stdio) error {
	return c.call(std, "document_list", map[string]any{})
}

// DocumentCreateCmd creates a document.
type DocumentCreateCmd struct {
	where
	Name    string `arg:"" help:"The new document, relative to the documents folder (findings/auth.md)." placeholder:"FILE"`
	Content string `short:"c" help:"Its content (default: read from stdin)."`
	From    string `short:"f" name:"from-file" help:"Read the content from FILE (- for stdin)." type:"path" placeholder:"FILE"`
}

// Run creates it.
func (c *DocumentCreateCmd) Run(std cli.Stdio) error {
	content, _, err := text(std, c.Content, c.From, c.Content == "")
	if err != nil {
		return err
	}
	return c.call(std, "document_create", map[string]any{"file": c.Name, "content": content})
}

// DocumentDeleteCmd deletes a document.
type DocumentDeleteCmd struct {
	where
	Name string `arg:"" help:"The document to delete." placeholder:"FILE"`
}

// Run deletes it.
func (c *DocumentDeleteCmd) Run(std cli.Stdio) error {
	return c.call(std, "document_delete", map[string]any{"file": c.Name})
}

// DocumentSuggestCmd suggests a change.
type DocumentSuggestCmd struct {
	where
	Suggestion string `arg:"" help:"What change to make."`
	File       string `help:"Which document to change." placeholder:"FILE"`
	Reason     string `help:"Why the change is needed."`
}

// Run posts the suggestion.
func (c *DocumentSuggestCmd) Run(std cli.Stdio) error {
	args := map[string]any{"suggestion": c.Suggestion}
	if c.File != "" {
		args["file"] = c.File
	}
	if c.Reason != "" {
		args["reason"] = c.Reason
	}
	return c.call(std, "document_suggest", args)
}

// Proposals

// ProposalCreateCmd opens a proposal.
type ProposalCreateCmd struct {
	where
	Type        string        `required:"" enum:"election,decision,approval,assignment" help:"election (choose an agent), decision (choose an option), approval (yes/no) or assignment (agents pick tasks)."`
	Title       string        `required:"" help:"What is being decided."`
	Description string        `help:"Context for the voters."`
	Option      []string      `help:"A choice, as ID or ID=LABEL (repeat it; automatic for election: the agents, and approval: yes/no)." placeholder:"ID[=LABEL]"`
	Resolution  string        `default:"plurality" enum:"plurality,majority,unanimous" help:"plurality (most votes), majority (more than half) or unanimous."`
	Quorum      int           `help:"Agents' votes that resolve it (default: the number of agents); votes by others do not count toward it." placeholder:"N"`
	TieBreaker  string        `name:"tie-breaker" enum:",first,random,creator-decides" default:"" help:"How a plurality tie is broken: first (option order), random, creator-decides (the creator's vote); none: no winner."`
	Binding     bool          `help:"The system enforces the result (a document owner election: the winner alone writes documents)."`
	Timeout     time.Duration `default:"60s" help:"How long it stays open; then it resolves with the votes cast (or expires with none)."`
}

// Run creates the proposal.
func (c *ProposalCreateCmd) Run(std cli.Stdio) error {
	if c.Timeout <= 0 {
		return cli.Errorf(cli.ExitUsage, "", "--timeout must be positive")
	}
	res := map[string]any{"type": c.Resolution}
	if c.Quorum > 0 {
		res["quorum"] = c.Quorum
	}
	if c.TieBreaker != "" {
		res["tieBreaker"] = c.TieBreaker
	}
	args := map[string]any{"type": c.Type, "title": c.Title, "resolution": res, "binding": c.Binding,
		"timeoutSeconds": int64(math.Ceil(c.Timeout.Seconds()))}
	if c.Description != "" {
		args["description"] = c.Description
	}
	if len(c.Option) > 0 {
		var opts []board.Option
		for _, o := range c.Option {
			id, label, _ := strings.Cut(o, "=")
			opts = append(opts, board.Option{ID: id, Label: label})
		}
		args["options"] = opts
	}
	return c.call(std, "proposal_create", args)
}

// ProposalVoteCmd votes.
type ProposalVoteCmd struct {
	where
	Proposal string `arg:"" help:"The proposal's id." placeholder:"ID"`
	Choice   string `arg:"" help:"The option's id." placeholder:"OPTION"`
	Reason   string `help:"Why (shown on the channel)."`
}

// Run votes.
func (c *ProposalVoteCmd) Run(std cli.Stdio) error {
	args := map[string]any{"proposal": c.Proposal, "choice": c.Choice}
	if c.Reason != "" {
		args["reason"] = c.Reason
	}
	return c.call(std, "vote", args)
}

// ProposalStatusCmd shows proposals.
type ProposalStatusCmd struct {
	where
	Proposal string `arg:"" optional:"" help:"The proposal's id (default: every active proposal)." placeholder:"ID"`
}

// Run prints the status.
func (c *ProposalStatusCmd) Run(std cli.Stdio) error {
	args := map[string]any{}
	if c.Proposal != "" {
		args["proposal"] = c.Proposal
	}
	return c.call(std, "proposal_status", args)
}

// ProposalCancelCmd cancels a proposal.
type ProposalCancelCmd struct {
	where
	Proposal string `arg:"" help:"The proposal's id." placeholder:"ID"`
	Reason   string `help:"Why (shown on the channel)."`
}

// Run cancels it.
func (c *ProposalCancelCmd) Run(std cli.Stdio) error {
	args := map[string]any{"proposal": c.Proposal}
	if c.Reason != "" {
		args["reason"] = c.Reason
	}
	return c.call(std, "proposal_cancel", args)
}

// MCP

// MCPCmd serves the tools over MCP.
type MCPCmd struct {
	Instance string `default:"default" help:"The instance (its context is .workflow/INSTANCE/ here)." placeholder:"NAME"`
	Dir      string `help:"The instance's context directory (overrides --instance)." type:"path" placeholder:"DIR"`
	As       string `required:"" help:"The agent the client acts as; every call is made as this agent." placeholder:"NAME"`
	clusterBoard
}

// Run serves until the client closes stdin or a signal arrives.
func (c *MCPCmd) Run(std cli.Stdio) error {
	if !board.ValidName(c.As) {
		return cli.Errorf(cli.ExitUsage, "", "invalid --as %q: a letter, then letters, digits, _ or -", c.As)
	}
	p, err := openBoard(c.clusterBoard, c.Dir, c.Instance)
	if err != nil {
		return err
	}
	defer p.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := mcpserver.New(board.NewTools(p), c.As, cli.Version())
	err = s.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(std.In), Writer: nopWriteCloser{std.Out}})
	if err != nil && (ctx.Err() != nil || errors.Is(err, io.EOF)) {
		return nil // the client went away, or we were told to stop
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
