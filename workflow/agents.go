package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/workflow/board"
)

// agentDir is the agent's folder in the instance directory.
func (r *runner) agentDir(a *AgentDef) string { return filepath.Join(r.dir, AgentsDir, a.Name) }

// deltaAgentDir is the Delta agent directory a run of a uses.
func (r *runner) deltaAgentDir(a *AgentDef) string {
	if a.Dir != "" {
		return a.Dir
	}
	return r.agentDir(a)
}

// agents writes the generated agent directories and MCP configurations,
// builds the backends and controllers, and clears stop requests.
func (r *runner) agents() error {
	f := r.f
	delta := &DeltaBackend{DeltaRun: r.o.DeltaRun, Workspace: r.o.Workspace, Instance: r.o.Instance, InstanceDir: r.dir,
		AgentDir: r.deltaAgentDir, Context: f.Context.Enabled, Cluster: r.o.Cluster, Env: r.o.Env, Poll: time.Second}
	command := &CommandBackend{Workspace: r.o.Workspace, Instance: r.o.Instance, InstanceDir: r.dir, Workflow: r.o.Workflow,
		Vars: r.vars, Context: f.Context.Enabled, Cluster: r.o.Cluster, Env: r.o.Env}
	r.backends = map[string]Backend{}
	for _, a := range f.Agents {
		dir := r.agentDir(a)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.Remove(filepath.Join(dir, stopFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		var others []string
		for _, b := range f.Agents {
			if b != a {
				others = append(others, b.Name)
			}
		}
		if a.Dir == "" {
			prompt, err := a.SystemPrompt.Expand(r.vars)
			if err != nil {
				return fmt.Errorf("agent %s: system prompt: %w", a.Name, err)
			}
			prompt += participation(a.Name, f.Name, r.o.Instance, others, f.Context.Enabled)
			if a.Backend == BackendCommand {
				if err := writeFile(filepath.Join(dir, promptFile), prompt); err != nil {
					return err
				}
			} else if err := a.Generate(dir, prompt); err != nil {
				return err
			}
		}
		b := Backend(delta)
		if q := r.queueOf(a); q != "" {
			var err error
			if b, err = r.queued(a, q, delta); err != nil {
				return err
			}
		}
		if a.Backend == BackendCommand {
			if err := command.WriteMCPConfig(a); err != nil {
				return err
			}
			b = command
		}
		if fake, ok := r.o.Backends[a.Name]; ok {
			b = fake
		}
		r.backends[a.Name] = b
		c := &Controller{Agent: a, Provider: r.p, Backend: b, Dir: dir, Poll: r.o.Poll, Retry: r.o.Retry,
			PostAnswer: !f.Context.Enabled, Events: r.printf, Changed: r.changed}
		c.Prompt = r.prompter(a)
		var err error
		if c.Log, err = r.agentLog(a); err != nil {
			return err
		}
		prev, _ := ReadAgentStatus(r.dir, a.Name)
		runsSoFar := 0
		if prev != nil {
			runsSoFar = prev.Runs
		}
		runID := ""
		if a.Backend == BackendDelta {
			runID = RunID(a.Name, r.o.Instance)
		}
		c.Init(runID, runsSoFar)
		r.ctrls = append(r.ctrls, c)
	}
	return nil
}

// agentLog is where an agent's live output goes: agents/<name>/run.log,
// given to the agent's process as a file, so that a run outliving the
// runner keeps writing to it. With -v the runner follows the file on
// stderr, each line prefixed with the agent's name.
func (r *runner) agentLog(a *AgentDef) (io.Writer, error) {
	path := filepath.Join(r.agentDir(a), "run.log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	r.closers = append(r.closers, f)
	if r.o.Verbose {
		r.follow = append(r.follow, followed{path: path, prefix: "[" + a.Name + "] "})
	}
	return f, nil
}

// followed is a log -v shows.
type followed struct{ path, prefix string }

// followLog copies what is appended to path from now on to w, until ctx
// ends (and then what is left).
func followLog(ctx context.Context, path string, w io.Writer) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	f.Seek(0, io.SeekEnd)
	buf := make([]byte, 32<<10)
	for {
		n, _ := f.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
			continue
		}
		select {
		case <-ctx.Done():
			io.Copy(w, f) // what was written last
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// prompter builds the digests of a's deliveries.
func (r *runner) prompter(a *AgentDef) func(context.Context, []board.InboxMessage, int) string {
	return func(ctx context.Context, inbox []board.InboxMessage, attempt int) string {
		in := digestInput{Agent: a.Name, Workflow: r.f.Name, Instance: r.o.Instance, Inbox: inbox, Attempt: attempt}
		if recent, err := r.p.Read(ctx, board.ReadOptions{Limit: digestRecent}); err == nil {
			in.Recent = recent
		}
		if r.f.Context.Enabled {
			in.DocumentOK = true
			in.DocumentName = r.p.Config().Document
			in.Document, _ = r.p.ReadDocument(ctx, "")
			in.Owner, _ = r.p.DocumentOwner(ctx)
			if docs, err := r.p.ListDocuments(ctx); err == nil {
				for _, d := range docs {
					if d != in.DocumentName {
						in.OtherDocuments = append(in.OtherDocuments, d)
					}
				}
			}
		}
		return digest(in)
	}
}

// lockedWriter serialises writes of several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// prefixWriter prefixes every line with prefix.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mu     sync.Mutex
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := strings.IndexByte(string(p.buf), '\n')
		if i < 0 {
			break
		}
		if _, err := p.w.Write([]byte(p.prefix + string(p.buf[:i+1]))); err != nil {
			return len(b), err
		}
		p.buf = p.buf[i+1:]
	}
	return len(b), nil
}
