package board

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/llm"
)

// Tools are the workflow's agent tools over one Provider: the single
// implementation behind the tools delta-run offers a workflow agent, the
// `delta workflow` subcommands and the MCP server.
type Tools struct {
	p Provider
}

// NewTools returns the tools of p.
func NewTools(p Provider) *Tools { return &Tools{p: p} }

// Provider is the context the tools work on.
func (t *Tools) Provider() Provider { return t.p }

// ToolError is a call the tool refused (a bad argument, a rule of the
// context); its text is what the caller sees after "Error: ".
type ToolError struct{ Err error }

func (e *ToolError) Error() string { return e.Err.Error() }
func (e *ToolError) Unwrap() error { return e.Err }

// ErrUnknownTool is a call of a tool name the workflow does not have.
var ErrUnknownTool = errors.New("unknown workflow tool")

type toolDef struct {
	desc   string
	schema string // JSON Schema of the arguments object
	run    func(t *Tools, ctx context.Context, who string, args json.RawMessage) (string, error)
}

func obj(props string, required ...string) string {
	req := ""
	if len(required) > 0 {
		q := make([]string, len(required))
		for i, r := range required {
			q[i] = strconv.Quote(r)
		}
		req = `,"required":[` + strings.Join(q, ",") + `]`
	}
	return `{"type":"object","properties":{` + props + `}` + req + `,"additionalProperties":false}`
}

const (
	fileProp  = `"file":{"type":"string","description":"Document path relative to the documents folder, e.g. todos.md or findings/auth.md (default: the entry document)"}`
	limitProp = `"limit":{"type":"integer","description":"Return only the last N entries"}`
)

// ToolNames lists the workflow tools in the order Specs gives them.
var ToolNames = []string{
	"channel_send", "channel_read", "channel_peek",
	"inbox_check", "inbox_ack",
	"document_read", "document_write", "document_append", "document_list",
	"document_create", "document_delete", "document_suggest",
	"proposal_create", "vote", "proposal_status", "proposal_cancel",
}

// toolDefs is built on first use: every delta-run links this package, few
// runs are workflow runs, and the schemas are strings put together.
var toolDefs = sync.OnceValue(func() map[string]toolDef {
	return map[string]toolDef{
		"channel_send": {
			desc:   "Send a message to the workflow channel. @name mentions wake that agent and put the message in its inbox.",
			schema: obj(`"message":{"type":"string","description":"Message to send, can include @mentions"}`, "message"),
			run:    (*Tools).channelSend,
		},
		"channel_read": {
			desc:   "Read the channel's history (oldest first). Reading acknowledges nothing; use inbox_ack for that.",
			schema: obj(`"since":{"type":"string","description":"Only entries after this seq number or RFC 3339 timestamp"},` + limitProp),
			run:    (*Tools).channelRead,
		},
		"channel_peek": {
			desc:   "Look at the latest channel entries without acknowledging anything.",
			schema: obj(limitProp),
			run:    (*Tools).channelPeek,
		},
		"inbox_check": {
			desc:   "List your unread messages: channel entries that @mention you, with their seq and priority (high: several mentions or urgent words). Checking does not mark them read.",
			schema: obj(``),
			run:    (*Tools).inboxCheck,
		},
		"inbox_ack": {
			desc:   "Mark your inbox read up to and including a message, after you have handled it.",
			schema: obj(`"until":{"type":"string","description":"The seq number (or RFC 3339 timestamp) of the last message you handled"}`, "until"),
			run:    (*Tools).inboxAck,
		},
		"document_read": {
			desc:   "Read a shared document (the entry document by default).",
			schema: obj(fileProp),
			run:    (*Tools).documentRead,
		},
		"document_write": {
			desc:   "Replace a shared document's content. With a document owner, only the owner may write; others use document_suggest.",
			schema: obj(`"content":{"type":"string","description":"New document content (replaces existing)"},`+fileProp, "content"),
			run:    (*Tools).documentWrite,
		},
		"document_append": {
			desc:   "Append to a shared document. With a document owner, only the owner may append.",
			schema: obj(`"content":{"type":"string","description":"Content to append to document"},`+fileProp, "content"),
			run:    (*Tools).documentAppend,
		},
		"document_list": {
			desc:   "List every shared document file.",
			schema: obj(``),
			run:    (*Tools).documentList,
		},
		"document_create": {
			desc:   "Create a new shared document file (folders are created as needed); it must not exist yet.",
			schema: obj(`"file":{"type":"string","description":"File path relative to the documents folder"},"content":{"type":"string","description":"Initial content"}`, "file", "content"),
			run:    (*Tools).documentCreate,
		},
		"document_delete": {
			desc:   "Delete a shared document file.",
			schema: obj(`"file":{"type":"string","description":"File path relative to the documents folder"}`, "file"),
			run:    (*Tools).documentDelete,
		},
		"document_suggest": {
			desc:   "Suggest a document change to the document owner: it is posted to the channel as @owner [DOC_SUGGEST].",
			schema: obj(`"suggestion":{"type":"string","description":"What change to make"},"file":{"type":"string","description":"Which file to change"},"reason":{"type":"string","description":"Why this change is needed"}`, "suggestion"),
			run:    (*Tools).documentSuggest,
		},
		"proposal_create": {
			desc: "Put a question to the agents: an election (choose an agent), decision (choose an option), approval (yes/no) or assignment (agents pick tasks). It is announced on the channel.",
			schema: obj(`"type":{"type":"string","enum":["election","decision","approval","assignment"]},`+
				`"title":{"type":"string"},"description":{"type":"string"},`+
				`"options":{"type":"array","description":"Choices (automatic for election: the agents; approval: yes/no)","items":{"type":"object","properties":{"id":{"type":"string"},"label":{"type":"string"}},"required":["id"]}},`+
				`"resolution":{"type":"object","properties":{"type":{"type":"string","enum":["plurality","majority","unanimous"],"description":"default plurality"},"quorum":{"type":"integer","description":"Agents' votes that resolve it (default: the number of agents)"},"tieBreaker":{"type":"string","enum":["first","random","creator-decides"]}}},`+
				`"binding":{"type":"boolean","description":"Enforced by the system (default false)"},`+
				`"timeoutSeconds":{"type":"integer","description":"Seconds until it resolves with the votes cast so far (default 60)"}`, "type", "title"),
			run: (*Tools).proposalCreate,
		},
		"vote": {
			desc:   "Vote on a proposal. Votes are final; repeating the same vote is harmless.",
			schema: obj(`"proposal":{"type":"string","description":"Proposal ID"},"choice":{"type":"string","description":"Option ID to vote for"},"reason":{"type":"string"}`, "proposal", "choice"),
			run:    (*Tools).vote,
		},
		"proposal_status": {
			desc:   "Show a proposal with its votes and result, or every active proposal.",
			schema: obj(`"proposal":{"type":"string","description":"Proposal ID (omit for all active)"}`),
			run:    (*Tools).proposalStatus,
		},
		"proposal_cancel": {
			desc:   "Cancel a proposal you created.",
			schema: obj(`"proposal":{"type":"string"},"reason":{"type":"string"}`, "proposal"),
			run:    (*Tools).proposalCancel,
		},
	}
})

// Specs lists the tools as a model sees them.
func (t *Tools) Specs() []llm.ToolSpec {
	out := make([]llm.ToolSpec, len(ToolNames))
	for i, n := range ToolNames {
		d := toolDefs()[n]
		out[i] = llm.ToolSpec{Name: n, Description: d.desc, Parameters: json.RawMessage(d.schema)}
	}
	return out
}

// Has reports whether name is a workflow tool.
func (t *Tools) Has(name string) bool { _, ok := toolDefs()[name]; return ok }

// Call runs tool name with its JSON arguments as identity and returns its
// text result. A refused call is a *ToolError (show it as "Error: …");
// other errors are failures of the context itself.
func (t *Tools) Call(ctx context.Context, identity, name string, args json.RawMessage) (string, error) {
	d, ok := toolDefs()[name]
	if !ok {
		return "", fmt.Errorf("%w %q", ErrUnknownTool, name)
	}
	if err := checkIdentity(identity); err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage(`{}`)
	}
	out, err := d.run(t, ctx, identity, args)
	if err != nil && refused(err) {
		return "", &ToolError{Err: err}
	}
	return out, err
}

// refused reports whether err is the caller's to fix rather than a
// failure of the context.
func refused(err error) bool {
	for _, e := range []error{ErrNotFound, ErrExists, ErrNotOwner, ErrElection, ErrBadPath, ErrNotActive, ErrInvalidOption, ErrVoteChanged, ErrNotCreator, ErrInvalid, errArgs} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

var errArgs = errors.New("bad arguments")

// decode reads args into v strictly: unknown fields are named.
func decode(args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", errArgs, err)
	}
	return nil
}

// number is an integer argument given as a JSON number or a numeric
// string (models send both).
type number struct {
	set bool
	n   int64
}

func (n *number) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" || s == "" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) {
		return fmt.Errorf("%s is not a whole number", b)
	}
	n.set, n.n = true, int64(f)
	return nil
}

// flag is a boolean argument given as JSON true/false or a string.
type flag bool

func (f *flag) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseBool(strings.Trim(string(b), `"`))
	if err != nil {
		return fmt.Errorf("%s is not true or false", b)
	}
	*f = flag(v)
	return nil
}

func jsonText(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

func required(field, value string) error {
	if value == "" {
		return fmt.Errorf("%w: %s is required", errArgs, field)
	}
	return nil
}

// Channel

func (t *Tools) channelSend(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Message string `json:"message"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if err := required("message", a.Message); err != nil {
		return "", err
	}
	e, err := t.p.Append(ctx, who, a.Message)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("sent (seq %d)", e.Seq), nil
}

// position reads a channel position given as a JSON number or string.
func position(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// Since parses a channel position: a seq number or an RFC 3339 time.
func Since(s string) (ReadOptions, error) {
	if s == "" {
		return ReadOptions{}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		return ReadOptions{AfterSeq: n}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return ReadOptions{Since: t}, nil
	}
	return ReadOptions{}, fmt.Errorf("%w: since %q: give a seq number or an RFC 3339 time (2025-01-15T10:05:00Z)", errArgs, s)
}

func (t *Tools) channelRead(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Since json.RawMessage `json:"since"` // a seq (number or string) or a time
		Limit number          `json:"limit"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	opt, err := Since(position(a.Since))
	if err != nil {
		return "", err
	}
	opt.Limit = int(a.Limit.n)
	entries, err := t.p.Read(ctx, opt)
	if err != nil {
		return "", err
	}
	return jsonText(nonNil(entries))
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// DefaultPeek is how many entries channel_peek shows without a limit.
const DefaultPeek = 20

func (t *Tools) channelPeek(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Limit number `json:"limit"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	limit := DefaultPeek
	if a.Limit.set {
		limit = int(a.Limit.n)
	}
	entries, err := t.p.Read(ctx, ReadOptions{Limit: limit})
	if err != nil {
		return "", err
	}
	return jsonText(nonNil(entries))
}

// Inbox

func (t *Tools) inboxCheck(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct{}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if err := t.hasInbox(who); err != nil {
		return "", err
	}
	msgs, err := t.p.Inbox(ctx, who)
	if err != nil {
		return "", err
	}
	return jsonText(msgs)
}

// hasInbox refuses the inbox of who when who is not one of the agents:
// only they are @mentioned, so anyone else's inbox would always be empty
// (a mistyped name at the command line, or user).
func (t *Tools) hasInbox(who string) error {
	agents := t.p.Config().Agents
	if len(agents) == 0 || slices.Contains(agents, who) {
		return nil
	}
	return refuse(ErrInvalid, "%s has no inbox: only the agents of the workflow have one (%s)", who, strings.Join(agents, ", "))
}

// AckPosition turns inbox_ack's until (a seq or a timestamp) into a seq.
func AckPosition(ctx context.Context, p Provider, until string) (int64, error) {
	if err := required("until", until); err != nil {
		return 0, err
	}
	opt, err := Since(until)
	if err != nil {
		return 0, err
	}
	if opt.Since.IsZero() {
		return opt.AfterSeq, nil
	}
	entries, err := p.Read(ctx, ReadOptions{})
	if err != nil {
		return 0, err
	}
	return SeqAt(entries, opt.Since), nil
}

func (t *Tools) inboxAck(ctx context.Context, who string, args json.RawMessage) (string, error) {
	var a struct {
		Until json.RawMessage `json:"until"`
	}
	if err := decode(args, &a); err != nil {
		return "", err
	}
	if err := t.hasInbox(who); err != nil {
		return "", err
	}
	seq, err := AckPosition(ctx, t.p, position(a.Until))
	if err != nil {
		return "", err
	}
	if err := t.p.Ack(ctx, who, seq); err != nil {
		return "", err
	}
	return "acknowledged", nil
}

// Documents

// Proposals

// RefusalHint is what a person on the command line can do instead of a
// refused call (delta workflow's hint line), "" when nothing particular.
func RefusalHint(err error) string {
	switch {
	case errors.Is(err, ErrNotOwner):
		return `suggest it instead: delta workflow document suggest "…" --file FILE`
	case errors.Is(err, ErrElection):
		return "vote with: delta workflow proposal vote ID CHOICE; delta workflow proposal status shows the election"
	}
	return ""
}
