package board

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// provider implements Provider over a Store: the rules live here, once.
type provider struct {
	s   Store
	cfg Config
	now func() time.Time
}

func newProvider(s Store, cfg Config) *provider {
	cfg = cfg.WithDefaults()
	return &provider{s: s, cfg: cfg, now: cfg.clock()}
}

func (c Config) clock() func() time.Time {
	if c.Now != nil {
		return c.Now
	}
	return time.Now
}

// WithDefaults is c with the default document and channel names filled in.
func (c Config) WithDefaults() Config {
	if c.Document == "" {
		c.Document = DefaultDocument
	}
	if c.Channel == "" {
		c.Channel = DefaultChannel
	}
	c.Agents = slices.Clone(c.Agents)
	return c
}

// Validate reports what is wrong with c: agent names must be mention
// names (a letter, then letters, digits, _ or -), unique and not one of
// the reserved identities; the owner must be an agent; the document a
// plain relative path.
func (c Config) Validate() error {
	seen := map[string]bool{}
	for _, a := range c.Agents {
		if !ValidName(a) {
			return fmt.Errorf("agent name %q: %w: use a letter, then letters, digits, _ or -", a, ErrInvalid)
		}
		if a == System || a == User {
			return fmt.Errorf("agent name %q: %w: reserved for the workflow", a, ErrInvalid)
		}
		if seen[a] {
			return fmt.Errorf("agent name %q: %w: given twice", a, ErrInvalid)
		}
		seen[a] = true
	}
	if c.DocumentOwner != "" && !seen[c.DocumentOwner] {
		return fmt.Errorf("documentOwner %q: %w: not one of the agents (%s)", c.DocumentOwner, ErrInvalid, strings.Join(c.Agents, ", "))
	}
	if c.Document != "" {
		if _, err := cleanDocPath(c.Document); err != nil {
			return err
		}
	}
	if c.Channel != "" && (strings.ContainsAny(c.Channel, `/\`) || !strings.HasSuffix(c.Channel, ".md") || c.Channel == ".md") {
		return fmt.Errorf("channel %q: %w: a file name ending in .md", c.Channel, ErrInvalid)
	}
	return nil
}

// mentionPattern is an @mention: @ then a letter, then letters, digits, _
// or -.
var mentionPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@([a-zA-Z][a-zA-Z0-9_-]*)`) })

var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_-]*$`) })

// ValidName reports whether name can be an agent's or caller's identity
// (what an @mention can name).
func ValidName(name string) bool { return namePattern().MatchString(name) }

// Mentions returns the agents message @mentions, in order of first
// appearance, each once; names that are not agents do not count.
func Mentions(message string, agents []string) []string {
	out := []string{}
	for _, m := range mentionPattern().FindAllStringSubmatch(message, -1) {
		if slices.Contains(agents, m[1]) && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

var urgentPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(urgent|asap|blocked|critical)\b`) })

// Priority is an entry's inbox priority: high when it mentions several
// agents or says urgent, asap, blocked or critical.
func Priority(e Entry) string {
	if len(e.Mentions) > 1 || urgentPattern().MatchString(e.Message) {
		return PriorityHigh
	}
	return PriorityNormal
}

func (p *provider) Config() Config { return p.cfg }

func (p *provider) Close() error { return p.s.Close() }

func checkIdentity(who string) error {
	if !ValidName(who) {
		return fmt.Errorf("identity %q: %w: use a letter, then letters, digits, _ or -", who, ErrInvalid)
	}
	return nil
}

// Channel

func (p *provider) Append(ctx context.Context, from, message string) (Entry, error) {
	if err := checkIdentity(from); err != nil {
		return Entry{}, err
	}
	if strings.TrimSpace(message) == "" {
		return Entry{}, fmt.Errorf("message: %w: it is empty", ErrInvalid)
	}
	e, _, err := p.s.AppendEntry(Entry{From: from, Message: message, Mentions: Mentions(message, p.cfg.Agents)})
	return e, err
}

func (p *provider) post(from, message, ref string) error {
	_, _, err := p.s.AppendEntry(Entry{From: from, Message: message, Mentions: Mentions(message, p.cfg.Agents), Ref: ref})
	return err
}

func (p *provider) Read(ctx context.Context, opt ReadOptions) ([]Entry, error) {
	all, err := p.s.Entries()
	if err != nil {
		return nil, err
	}
	out := all[:0:0]
	for _, e := range all {
		if e.Seq <= opt.AfterSeq || (!opt.Since.IsZero() && !e.Timestamp.After(opt.Since)) {
			continue
		}
		out = append(out, e)
	}
	if opt.Limit > 0 && len(out) > opt.Limit {
		out = out[len(out)-opt.Limit:]
	}
	return out, nil
}

func (p *provider) LastSeq(ctx context.Context) (int64, error) { return p.s.LastSeq() }

func (p *provider) Wait(ctx context.Context, afterSeq int64) (int64, error) {
	return p.s.Wait(ctx, afterSeq)
}

// Inbox

type cursor struct {
	Agent string `json:"agent"`
	Seq   int64  `json:"seq"`
}

func cursorKey(agent string) string { return "inbox/" + agent + ".json" }

func (p *provider) Cursor(ctx context.Context, agent string) (int64, error) {
	if err := checkIdentity(agent); err != nil {
		return 0, err
	}
	b, err := p.s.Get(cursorKey(agent))
	if err != nil || b == nil {
		return 0, err
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return 0, fmt.Errorf("read inbox cursor of %s: %w", agent, err)
	}
	return c.Seq, nil
}

func (p *provider) Inbox(ctx context.Context, agent string) ([]InboxMessage, error) {
	cur, err := p.Cursor(ctx, agent)
	if err != nil {
		return nil, err
	}
	entries, err := p.Read(ctx, ReadOptions{AfterSeq: cur})
	if err != nil {
		return nil, err
	}
	out := []InboxMessage{}
	for _, e := range entries {
		if e.From != agent && slices.Contains(e.Mentions, agent) {
			out = append(out, InboxMessage{Entry: e, Unread: true, Priority: Priority(e)})
		}
	}
	return out, nil
}

func (p *provider) Ack(ctx context.Context, agent string, untilSeq int64) error {
	if err := checkIdentity(agent); err != nil {
		return err
	}
	unlock, err := p.s.Lock(lockState)
	if err != nil {
		return err
	}
	defer unlock()
	last, err := p.s.LastSeq()
	if err != nil {
		return err
	}
	untilSeq = min(untilSeq, last)
	cur, err := p.Cursor(ctx, agent)
	if err != nil || untilSeq <= cur {
		return err
	}
	b, _ := json.Marshal(cursor{Agent: agent, Seq: untilSeq})
	return p.s.Put(cursorKey(agent), append(b, '\n'))
}

// SeqAt returns the seq of the last entry at or before t (0: none), so
// that an acknowledgement by timestamp becomes a cursor.
func SeqAt(entries []Entry, t time.Time) int64 {
	var seq int64
	for _, e := range entries {
		if !e.Timestamp.After(t) {
			seq = max(seq, e.Seq)
		}
	}
	return seq
}

// Documents

// CheckDocPath reports whether file is an acceptable document path
// (relative to the documents folder, / between folders, not leaving it,
// no part starting with .).
func CheckDocPath(file string) error {
	_, err := cleanDocPath(file)
	return err
}

// cleanDocPath checks a document path given by a caller: relative,
// slash-separated, inside the documents folder, no hidden parts.
func cleanDocPath(file string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("document path %q: %w: %s", file, ErrBadPath, why)
	}
	if file == "" {
		return bad("it is empty")
	}
	if strings.Contains(file, `\`) || strings.ContainsRune(file, 0) {
		return bad("use / between folders")
	}
	if path.IsAbs(file) {
		return bad("give it relative to the documents folder")
	}
	clean := path.Clean(file)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return bad("it leaves the documents folder")
	}
	for part := range strings.SplitSeq(clean, "/") {
		if strings.HasPrefix(part, ".") {
			return bad("names starting with . are reserved")
		}
	}
	return clean, nil
}

func (p *provider) docPath(file string) (string, error) {
	if file == "" {
		file = p.cfg.Document
	}
	return cleanDocPath(file)
}

type ownerState struct {
	Owner  string `json:"owner"`  // "" : ownership disabled
	Source string `json:"source"` // the election that decided it
}

const ownerKey = "owner.json"

func (p *provider) DocumentOwner(ctx context.Context) (string, error) {
	b, err := p.s.Get(ownerKey)
	if err != nil {
		return "", err
	}
	if b != nil {
		var o ownerState
		if err := json.Unmarshal(b, &o); err != nil {
			return "", fmt.Errorf("read document owner: %w", err)
		}
		return o.Owner, nil
	}
	return p.cfg.DocumentOwner, nil
}

func (p *provider) ReadDocument(ctx context.Context, file string) (string, error) {
	rel, err := p.docPath(file)
	if err != nil {
		return "", err
	}
	b, err := p.s.DocRead(rel)
	if err != nil {
		if file == "" && isNotFound(err) {
			return "", nil
		}
		return "", err
	}
	return string(b), nil
}

// mayWrite checks that who may change documents now, and takes the
// documents lock for the change.
func (p *provider) mayWrite(ctx context.Context, who string) (func(), error) {
	if err := checkIdentity(who); err != nil {
		return nil, err
	}
	if _, err := p.Settle(ctx); err != nil {
		return nil, err
	}
	active, err := p.Proposals(ctx, true)
	if err != nil {
		return nil, err
	}
	for _, pr := range active {
		if isOwnerElection(pr) {
			return nil, refuse(ErrElection, "Document owner election in progress (%s). Please vote and wait for resolution before writing.", pr.ID)
		}
	}
	owner, err := p.DocumentOwner(ctx)
	if err != nil {
		return nil, err
	}
	if owner != "" && who != owner && who != System {
		return nil, refuse(ErrNotOwner, "Only @%s can write to documents. Use document_suggest instead.", owner)
	}
	return p.s.Lock(lockDocuments)
}

func (p *provider) WriteDocument(ctx context.Context, who, file, content string) error {
	rel, unlock, err := p.writableDoc(ctx, who, file)
	if err != nil {
		return err
	}
	defer unlock()
	return p.s.DocWrite(rel, []byte(content))
}

func (p *provider) AppendDocument(ctx context.Context, who, file, content string) error {
	rel, unlock, err := p.writableDoc(ctx, who, file)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := p.s.DocRead(rel)
	if err != nil && !isNotFound(err) {
		return err
	}
	return p.s.DocWrite(rel, append(old, content...))
}

func (p *provider) CreateDocument(ctx context.Context, who, file, content string) error {
	if file == "" {
		return fmt.Errorf("document path: %w: name the file to create", ErrBadPath)
	}
	rel, unlock, err := p.writableDoc(ctx, who, file)
	if err != nil {
		return err
	}
	defer unlock()
	return p.s.DocCreate(rel, []byte(content))
}

func (p *provider) DeleteDocument(ctx context.Context, who, file string) error {
	if file == "" {
		return fmt.Errorf("document path: %w: name the file to delete", ErrBadPath)
	}
	rel, unlock, err := p.writableDoc(ctx, who, file)
	if err != nil {
		return err
	}
	defer unlock()
	return p.s.DocDelete(rel)
}

// writableDoc resolves the document file and takes the documents' lock
// when who may write them (mayWrite). The caller unlocks.
func (p *provider) writableDoc(ctx context.Context, who, file string) (string, func(), error) {
	rel, err := p.docPath(file)
	if err != nil {
		return "", nil, err
	}
	unlock, err := p.mayWrite(ctx, who)
	if err != nil {
		return "", nil, err
	}
	return rel, unlock, nil
}

func (p *provider) ListDocuments(ctx context.Context) ([]string, error) {
	return p.s.DocList()
}
