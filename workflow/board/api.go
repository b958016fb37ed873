// Package board is the board the agents of one workflow instance share
// (their shared context): the channel (an append-only log of messages
// with @mentions), each agent's inbox (the unread entries that mention
// it, behind a read cursor), the documents (an entry document and more
// files in folders, with an optional single writer) and proposals with
// votes.
//
// Everything lives behind one Provider interface. OpenFile keeps the
// context as files in an instance directory (.workflow/<instance>/ by
// default), safe for many processes at once and for a kill at any moment:
// the channel is an append-only JSONL log (lib/jsonl, as a run's journal
// is) appended under a lock (lib/filelock); every other state file is
// replaced atomically under a lock. NewMemory keeps it in memory, for tests.
//
// The agent tools of the workflow (channel_send, inbox_check, vote, …)
// are implemented once, by Tools, over a Provider; delta-run offers them to
// workflow agents, `delta workflow channel …` to scripts and humans, and
// `delta workflow mcp` to agents that are other programs.
package board

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Entry is one channel message. Seq numbers the entries 1, 2, 3 … in the
// order they were appended; it is the entry's identity (timestamps of two
// entries may be equal).
type Entry struct {
	Seq       int64     `json:"seq"`
	Timestamp time.Time `json:"timestamp"`
	From      string    `json:"from"`
	Message   string    `json:"message"`
	// Mentions are the known agents the message @mentions, in order of
	// first appearance, each once.
	Mentions []string `json:"mentions"`
	// Ref, when set, names the event the entry announces (a vote, a
	// resolution): an entry with a given Ref is appended at most once, so
	// an announcement retried after a crash is not repeated.
	Ref string `json:"ref,omitempty"`
}

// Priorities of an inbox message.
const (
	PriorityNormal = "normal"
	PriorityHigh   = "high"
)

// InboxMessage is one unread entry that mentions an agent.
type InboxMessage struct {
	Entry  Entry `json:"entry"`
	Unread bool  `json:"unread"`
	// Priority is "high" when the entry mentions several agents or says
	// urgent, asap, blocked or critical; "normal" otherwise.
	Priority string `json:"priority"`
}

// Config describes one workflow instance's context.
type Config struct {
	// Agents are the workflow's agent names: only they count as @mentions
	// and have inboxes, and an election chooses among them.
	Agents []string `json:"agents"`
	// Document is the entry document's name (default DefaultDocument).
	Document string `json:"document,omitempty"`
	// DocumentOwner, when set, is the only agent that may write
	// documents; the others suggest changes (document_suggest).
	DocumentOwner string `json:"documentOwner,omitempty"`
	// Channel is the name of the rendered channel for people (default
	// DefaultChannel); the JSONL source of truth takes the same base name.
	Channel string `json:"channel,omitempty"`
	// Now is the clock (time.Now when nil); tests set it to make
	// proposals expire.
	Now func() time.Time `json:"-"`
}

// IsZero reports whether c names nothing: opening a context with a zero
// Config uses the one saved when it was created.
func (c Config) IsZero() bool {
	return len(c.Agents) == 0 && c.Document == "" && c.DocumentOwner == "" && c.Channel == ""
}

// Defaults of Config.
const (
	DefaultDocument = "notes.md"
	DefaultChannel  = "channel.md"
	// DefaultDir is where an instance's context lives, relative to the
	// directory the workflow runs in: DefaultDir + "/" + instance.
	DefaultDir = ".workflow"
)

// ReadOptions select channel entries: those after seq AfterSeq, or (when
// Since is set) after that time, and of those the last Limit (0: all).
type ReadOptions struct {
	AfterSeq int64
	Since    time.Time
	Limit    int
}

// Proposal types.
const (
	Election   = "election"
	Decision   = "decision"
	Approval   = "approval"
	Assignment = "assignment"
)

// Resolution rule types and tie breakers.
const (
	Plurality = "plurality"
	Majority  = "majority"
	Unanimous = "unanimous"

	TieFirst          = "first"
	TieRandom         = "random"
	TieCreatorDecides = "creator-decides"
)

// Proposal statuses.
const (
	StatusActive    = "active"
	StatusResolved  = "resolved"
	StatusExpired   = "expired"
	StatusCancelled = "cancelled"
)

// OwnerElectionPrefix starts the id of a document owner election: when
// such an election is binding and resolves with a winner, the winner
// becomes the document owner; while it is active no one writes documents.
const OwnerElectionPrefix = "doc-owner"

// Proposal is a question put to the agents.
type Proposal struct {
	ID          string     `json:"id"`
	Type        string     `json:"type"`
	Title       string     `json:"title"`
	Description string     `json:"description,omitempty"`
	Options     []Option   `json:"options"`
	CreatedBy   string     `json:"createdBy"`
	CreatedAt   time.Time  `json:"createdAt"`
	ExpiresAt   *time.Time `json:"expiresAt,omitempty"`
	Resolution  Resolution `json:"resolution"`
	Binding     bool       `json:"binding"`
	Status      string     `json:"status"`
	Result      Result     `json:"result"`
}

// Option is one choice of a proposal.
type Option struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Resolution says how votes decide a proposal.
type Resolution struct {
	Type string `json:"type"` // plurality (default), majority, unanimous
	// Quorum is how many of the agents' votes resolve the proposal
	// (default: the number of agents). Votes by others (a person, a
	// script) count in the result but not toward the quorum.
	Quorum     int    `json:"quorum,omitempty"`
	TieBreaker string `json:"tieBreaker,omitempty"`
}

// Result is a proposal's votes and, once decided, its outcome.
type Result struct {
	Winner string            `json:"winner,omitempty"`
	Votes  map[string]string `json:"votes"`  // voter → option id
	Counts map[string]int    `json:"counts"` // option id → votes
	// Assignments (assignment proposals): option id → the voters who
	// chose it, in voting order.
	Assignments map[string][]string `json:"assignments,omitempty"`
	ResolvedAt  *time.Time          `json:"resolvedAt,omitempty"`
	ResolvedBy  string              `json:"resolvedBy,omitempty"` // votes, timeout, creator, system
}

// ProposalSpec is what proposal_create asks for.
type ProposalSpec struct {
	// ID is optional; one is generated when empty. A document owner
	// election uses an id starting with OwnerElectionPrefix.
	ID          string     `json:"id,omitempty"`
	Type        string     `json:"type"`
	Title       string     `json:"title"`
	Description string     `json:"description,omitempty"`
	Options     []Option   `json:"options,omitempty"` // automatic for election (agents) and approval (yes/no)
	Resolution  Resolution `json:"resolution"`
	Binding     bool       `json:"binding"`
	// Timeout is how long the proposal stays open (default 60s; negative:
	// no deadline).
	Timeout time.Duration `json:"-"`
}

// VoteOutcome says what a vote did.
type VoteOutcome struct {
	Proposal Proposal `json:"proposal"`
	// Repeated is true when the voter had already cast this same vote
	// (votes are idempotent; changing one is an error).
	Repeated bool `json:"repeated"`
	// Counted is true when the voter is one of the workflow's agents, whose
	// votes count toward the quorum; anyone else's vote is recorded and
	// counted in the result, but does not bring the proposal closer to
	// resolving.
	Counted bool `json:"counted"`
	// Votes is how many votes count toward the quorum so far: the
	// agents'.
	Votes  int `json:"votes"`
	Quorum int `json:"quorum"`
}

// Errors a caller can act on (compare with errors.Is).
var (
	ErrNotFound      = errors.New("not found")
	ErrExists        = errors.New("already exists")
	ErrNotOwner      = errors.New("not the document owner")
	ErrElection      = errors.New("document owner election in progress")
	ErrBadPath       = errors.New("path outside the context")
	ErrNotActive     = errors.New("proposal is not active")
	ErrInvalidOption = errors.New("invalid option")
	ErrVoteChanged   = errors.New("votes cannot be changed")
	ErrNotCreator    = errors.New("only the creator can cancel")
	ErrInvalid       = errors.New("invalid request")
)

// Provider is the shared context of one workflow instance. Every method is
// safe for concurrent use, by goroutines and (file provider) by processes.
// Identities (from, agent, who) are set by the caller — the runner or the
// command line — never chosen by a model.
type Provider interface {
	// Config returns the instance's configuration (agents, entry
	// document, configured owner).
	Config() Config

	// Append adds a message to the channel and returns its entry, with
	// its seq, timestamp and mentions. It is durable when Append returns.
	Append(ctx context.Context, from, message string) (Entry, error)
	// Read returns channel entries, oldest first (see ReadOptions).
	Read(ctx context.Context, opt ReadOptions) ([]Entry, error)
	// LastSeq is the seq of the newest entry (0 for an empty channel).
	LastSeq(ctx context.Context) (int64, error)
	// Wait blocks until the channel has an entry after afterSeq (or ctx
	// ends) and returns the newest seq. Appends by this process wake it at
	// once; appends by other processes are seen by polling the file.
	Wait(ctx context.Context, afterSeq int64) (int64, error)

	// Inbox returns agent's unread entries that mention it (entries it
	// wrote itself excluded), oldest first. It acknowledges nothing.
	Inbox(ctx context.Context, agent string) ([]InboxMessage, error)
	// Ack marks agent's inbox read up to and including entry untilSeq.
	// Cursors never move back: an older untilSeq changes nothing.
	Ack(ctx context.Context, agent string, untilSeq int64) error
	// Cursor is agent's read cursor: the seq of the last entry it
	// acknowledged (0: none).
	Cursor(ctx context.Context, agent string) (int64, error)

	// DocumentOwner returns the agent that alone may write documents,
	// "" when anyone may: the binding election's winner, else the
	// configured owner.
	DocumentOwner(ctx context.Context) (string, error)
	// ReadDocument returns a document's content; file "" is the entry
	// document, which reads as "" until written.
	ReadDocument(ctx context.Context, file string) (string, error)
	// WriteDocument, AppendDocument, CreateDocument and DeleteDocument
	// change documents on behalf of who, enforcing the owner: another
	// agent gets ErrNotOwner, and during an owner election ErrElection.
	WriteDocument(ctx context.Context, who, file, content string) error
	AppendDocument(ctx context.Context, who, file, content string) error
	CreateDocument(ctx context.Context, who, file, content string) error // ErrExists if it exists
	DeleteDocument(ctx context.Context, who, file string) error
	// ListDocuments returns every document's path, slash-separated and
	// relative to the documents folder, sorted.
	ListDocuments(ctx context.Context) ([]string, error)

	// CreateProposal opens a proposal by creator and announces it on the
	// channel ([PROPOSAL:id], mentioning every agent).
	CreateProposal(ctx context.Context, creator string, spec ProposalSpec) (Proposal, error)
	// Vote records voter's choice, announces it ([VOTE:id]) and resolves
	// the proposal when the agents' votes reach the quorum ([RESOLVED:id]).
	// Anyone may vote; a voter that is not an agent is counted in the
	// result but not toward the quorum.
	Vote(ctx context.Context, voter, proposalID, choice, reason string) (VoteOutcome, error)
	// Proposal returns one proposal; Proposals all of them, or only the
	// active ones. Both settle proposals whose deadline has passed first.
	Proposal(ctx context.Context, id string) (Proposal, error)
	Proposals(ctx context.Context, activeOnly bool) ([]Proposal, error)
	// CancelProposal cancels an active proposal; only its creator (or
	// "system") may.
	CancelProposal(ctx context.Context, who, id, reason string) (Proposal, error)
	// Settle resolves or expires the proposals whose deadline has passed
	// and returns the ones it changed. The runner calls it while waiting;
	// every proposal operation calls it too.
	Settle(ctx context.Context) ([]Proposal, error)
	// ActiveProposals reports whether any proposal still awaits votes
	// (after settling the overdue ones): a workflow in run mode is not
	// done while one does.
	ActiveProposals(ctx context.Context) (bool, error)
	// StartOwnerElection opens the binding document owner election among
	// the agents (plurality, first option wins a tie), unless an owner is
	// configured or elected or an election is already open; it returns
	// the election, or ok false when none is needed.
	StartOwnerElection(ctx context.Context, timeout time.Duration) (p Proposal, ok bool, err error)

	// Close releases the provider's resources.
	Close() error
}

// System is the identity of the workflow itself: the runner's messages,
// proposal announcements and results.
const System = "system"

// User is the identity of a person at the command line, the default of
// `delta workflow` subcommands.
const User = "user"

// InstanceDir is where the context of instance lives under root (the
// directory the workflow runs in) when the workflow does not name a
// directory: root/.workflow/<instance>. The runner and `delta workflow
// --instance` both find it this way.
func InstanceDir(root, instance string) string {
	return filepath.Join(root, DefaultDir, instance)
}

// Environment variables through which the workflow runner tells delta-run
// that a run is a workflow agent: the instance directory and the agent's
// name. delta-run then offers the agent the workflow tools, acting as that
// agent.
const (
	EnvDir   = "DELTA_WORKFLOW_DIR"
	EnvAgent = "DELTA_WORKFLOW_AGENT"
	// EnvCluster, with EnvInstance and EnvAgent, names an instance whose
	// board is kept in a cluster (nats://…) instead of EnvDir: the run
	// reaches its tools through delta-workflow mcp --cluster, so that
	// delta-run itself runs no cluster code.
	EnvCluster  = "DELTA_WORKFLOW_CLUSTER"
	EnvInstance = "DELTA_WORKFLOW_INSTANCE"
)

// The constructors (file.go, memory.go):
//
//	OpenFile(dir string, cfg Config) (Provider, error)
//	    the context in dir. With cfg.Agents set, dir is created if needed
//	    and cfg is saved in dir/context.json; with a zero cfg, the saved
//	    one is loaded (an error when dir holds no instance).
//	NewMemory(cfg Config) Provider
//
// The tools (tools.go):
//
//	NewTools(p Provider) *Tools
//	(*Tools).Specs() []llm.ToolSpec
//	(*Tools).Call(ctx, identity, name string, args json.RawMessage) (string, error)
//	Toolbox(p Provider, identity string) engine.Toolbox

// refusal is a refused request: its own message (the words the agent
// tools answer with), matching its kind with errors.Is.
type refusal struct {
	msg  string
	kind error
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.kind }

func refuse(kind error, format string, a ...any) error {
	return &refusal{msg: fmt.Sprintf(format, a...), kind: kind}
}
