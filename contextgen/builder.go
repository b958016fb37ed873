package contextgen

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// DefaultGeneratorTimeoutMS is a generator's timeout when timeout_ms is not
// set (seeds/000 §2.4.3).
const DefaultGeneratorTimeoutMS = 30000

// Builder builds a run's context from its agent's context.yaml. It
// implements engine.ContextBuilder. What it builds depends only on the
// run's files: the one thing it keeps between builds is the conversation
// of the last events it read, which it extends when the next build's
// events are the same ones with more appended (the engine's journal),
// instead of converting every event again.
type Builder struct {
	// Environ returns the environment generators inherit before the Delta
	// variables are added; nil means os.Environ filtered by the agent's env
	// settings (secrets removed, seeds/001 §4.2), as for tools.
	Environ func() []string
	// Stderr receives warnings; nil discards them.
	Stderr io.Writer
	// Journal, when set, is the run's conversation already read (see
	// Stream): journal sources use it instead of the run's events, which
	// only a jq generator then reads.
	Journal *Stream
	// Pieces, when set, has BuildParts give a journal source's messages
	// in Part.Pieces rather than joined in Part.Messages: joining a long
	// conversation's messages copies them all, when a caller that prints
	// them needs them only in turn.
	Pieces bool

	mu     sync.Mutex
	conv   *rebuilder      // the conversation of convOf
	convOf []journal.Event // the events conv was built from
}

var _ engine.ContextBuilder = (*Builder)(nil)

// New returns a Builder that runs generators with the current process's
// environment.
func New() *Builder { return &Builder{} }

// Part is what one context source contributed.
type Part struct {
	Source   agent.ContextSource
	Messages []llm.Message
	// Pieces, with a Builder's Pieces set, are a journal source's
	// messages in order, in the pieces they were built in, and Messages
	// is nil (see All).
	Pieces [][]llm.Message
	// Tokens is the estimate of the messages (EstimateTokens).
	Tokens int
	// Truncated is true when max_tokens cut the source's content.
	Truncated bool
	// Skipped is true when the source's file was missing and on_missing
	// is skip.
	Skipped bool
}

// Build returns the messages the model receives next: every source of the
// agent's context.yaml in order (source order is priority order).
func (b *Builder) Build(ctx context.Context, run engine.RunInfo) ([]llm.Message, error) {
	parts, err := b.BuildParts(ctx, run)
	if err != nil {
		return nil, err
	}
	var pieces [][]llm.Message
	for _, p := range parts {
		pieces = append(pieces, p.Messages)
		pieces = append(pieces, p.Pieces...)
	}
	return join(pieces), nil
}

// All returns the part's messages in one slice: Messages, or its Pieces
// joined.
func (p *Part) All() []llm.Message {
	if p.Pieces == nil {
		return p.Messages
	}
	return join(p.Pieces)
}

// Len is the number of the part's messages.
func (p *Part) Len() int {
	n := len(p.Messages)
	for _, piece := range p.Pieces {
		n += len(piece)
	}
	return n
}

// BuildParts is Build with the contribution of each source kept apart, for
// delta-context --source and --tokens.
func (b *Builder) BuildParts(ctx context.Context, run engine.RunInfo) ([]Part, error) {
	if run.Agent == nil {
		return nil, fmt.Errorf("build context: %w: no agent loaded", ErrSource)
	}
	cfg := run.Agent.Context
	var events []journal.Event
	var eventsRead bool
	loadEvents := func() ([]journal.Event, error) {
		if eventsRead {
			return events, nil
		}
		var err error
		if run.Events != nil {
			if events, err = run.Events(); err != nil {
				err = fmt.Errorf("%w: %w", ErrJournal, err)
			}
		} else {
			events, err = readJournal(run.JournalPath)
		}
		eventsRead = err == nil
		return events, err
	}
	parts := make([]Part, 0, len(cfg.Sources))
	for _, src := range cfg.Sources {
		p, err := b.buildSource(ctx, run, src, loadEvents)
		if err != nil {
			return nil, &SourceError{Index: src.Index, ID: src.ID, Type: src.Type, File: cfg.Path, Line: src.Line, Err: err}
		}
		p.Source = src
		if p.Tokens == 0 {
			// EstimateTokens of all the messages; a journal source's
			// comes from the counts its conversation keeps (a long one is
			// not counted twice).
			chars := llm.MessageChars(p.Messages)
			for _, piece := range p.Pieces {
				chars += llm.MessageChars(piece)
			}
			p.Tokens = llm.TokensOf(chars)
		}
		if src.MaxTokens > 0 && p.Tokens > src.MaxTokens && src.Type == agent.SourceJournal {
			b.warnf("context source %q: the latest iteration alone is about %d tokens, over its max_tokens of %d; it is kept whole", src.ID, p.Tokens, src.MaxTokens)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

func (b *Builder) buildSource(ctx context.Context, run engine.RunInfo, src agent.ContextSource, events func() ([]journal.Event, error)) (Part, error) {
	switch src.Type {
	case agent.SourceFile:
		return b.fileSource(run, src)
	case agent.SourceComputedFile:
		return b.computedSource(ctx, run, src, events)
	case agent.SourceEnvironment:
		return b.environmentSource(ctx, run, src), nil
	case agent.SourceProjectDocs:
		return b.projectDocsSource(ctx, run, src)
	case agent.SourceSkills:
		return skillsSource(run, src), nil
	case agent.SourceJournal:
		var c *conversation
		if b.Journal != nil {
			c = b.Journal.conversation()
		} else {
			evs, err := events()
			if err != nil {
				return Part{}, err
			}
			c = b.conversationOf(evs, run.RunDir)
		}
		if b.Pieces {
			pieces, chars, truncated := journalPieces(c, src)
			return Part{Pieces: pieces, Truncated: truncated, Tokens: llm.TokensOf(chars)}, nil
		}
		return journalSource(c, src), nil
	default:
		return Part{}, fmt.Errorf("%w: unknown type %q (want file, computed_file, journal, environment, project_docs or skills)", ErrSource, src.Type)
	}
}

// conversationOf is rebuild(events) (the images of results read from
// runDir), extending the conversation of the
// last events when events are those with more appended: the same backing
// array (a journal's events are never changed, only appended to; a journal
// read again is a new slice, and so is one that grew past its capacity,
// which both rebuild from the start).
func (b *Builder) conversationOf(events []journal.Event, runDir string) *conversation {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.conv
	if r == nil || r.runDir != runDir || len(events) < r.n || r.n > 0 && &events[r.n-1] != &b.convOf[r.n-1] {
		r = newRebuilder(runDir)
	}
	for i := r.n; i < len(events); i++ {
		r.add(&events[i])
	}
	b.conv, b.convOf = r, events
	return r.conversation(waitingFor(events))
}

// block wraps a file or computed_file content as the system message of
// seeds/000 §2.4.3, labelled with the source id.
func block(src agent.ContextSource, content string) llm.Message {
	id := src.ID
	if id == "" {
		id = fmt.Sprintf("source_%d", src.Index+1)
	}
	return llm.Message{Role: llm.RoleSystem, Content: "# Context Block: " + id + "\n\n" + content, Name: id}
}

func (b *Builder) environ(a *agent.Agent) []string {
	if b.Environ != nil {
		return b.Environ()
	}
	return agent.FilterEnv(os.Environ(), a.Env)
}

func (b *Builder) warnf(format string, args ...any) {
	if b.Stderr != nil {
		fmt.Fprintf(b.Stderr, "delta: warning: "+format+"\n", args...)
	}
}
