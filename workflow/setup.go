package workflow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/workflow/board"
)

// loadState reads the instance's state, creating it for a new instance,
// and follows the workflow file when it moved.
func (r *runner) loadState() (*State, error) {
	f, o := r.f, r.o
	st, err := ReadState(r.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st = &State{Workflow: f.Name, File: f.Path, Instance: o.Instance, Workspace: o.Workspace, CreatedAt: time.Now().UTC(), Cluster: o.Cluster.url()}
		if err := WriteState(r.dir, st); err != nil {
			return nil, err
		}
		r.printf("instance %s of workflow %s in %s", o.Instance, f.Name, r.dir)
		return st, nil
	case err != nil:
		return nil, err
	}
	if st.Workspace != "" && st.Workspace != o.Workspace {
		return nil, fmt.Errorf("instance %s works in %s, not here (%s): run it from there", o.Instance, st.Workspace, o.Workspace)
	}
	if st.File != f.Path {
		// The same workflow, its file moved or renamed: follow it.
		st.File = f.Path
		if err := WriteState(r.dir, st); err != nil {
			return nil, err
		}
	}
	r.printf("resuming instance %s of workflow %s (%s)", o.Instance, f.Name, r.dir)
	return st, nil
}

// startElection opens, once per instance, the election of a document
// owner when the workflow names none and has more than one agent.
func (r *runner) startElection(ctx context.Context, st *State) error {
	if st.ElectionStarted {
		return nil
	}
	f := r.f
	timeout := r.o.ElectionTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if len(f.Agents) > 1 && f.Context.DocumentOwner == "" {
		if p, ok, err := r.p.StartOwnerElection(ctx, timeout); err != nil {
			return fmt.Errorf("start the document owner election: %w", err)
		} else if ok {
			r.printf("no documentOwner: the agents elect one (proposal %s)", p.ID)
		}
	}
	st.ElectionStarted = true
	return WriteState(r.dir, st)
}

// electing reports whether a document owner election is open: the
// kickoff waits until it ends (the agents first elect the owner, then
// work).
func (r *runner) electing(ctx context.Context) (bool, error) {
	if !r.f.Context.Enabled || strings.TrimSpace(r.f.Kickoff.S) == "" {
		return false, nil
	}
	if _, err := r.p.Settle(ctx); err != nil {
		return false, err
	}
	active, err := r.p.Proposals(ctx, true)
	if err != nil {
		return false, err
	}
	for _, p := range active {
		if board.IsOwnerElection(p) {
			return true, nil
		}
	}
	return false, nil
}

// documents creates, empty, the documents of context.config.documents
// that do not exist yet (those that do are kept as they are).
func (r *runner) documents(ctx context.Context) error {
	for _, t := range r.f.Context.Documents {
		file, err := t.Expand(r.vars)
		if err != nil {
			return fmt.Errorf("context: config: documents: %w", err)
		}
		if err := r.p.CreateDocument(ctx, board.System, file, ""); err != nil && !errors.Is(err, board.ErrExists) {
			if errors.Is(err, board.ErrElection) {
				// An owner election opened by an earlier runner is still
				// going on: create it once it is over (next start).
				continue
			}
			return fmt.Errorf("create document %s: %w", file, err)
		}
	}
	return nil
}

// setup runs the setup steps in the workspace and returns their variables.
func (r *runner) setup(ctx context.Context) (map[string]string, error) {
	vars := map[string]string{}
	v := r.vars
	v.Setup = vars
	for i, s := range r.f.Setup {
		cmd, err := s.Shell.Expand(v)
		if err != nil {
			return nil, fmt.Errorf("setup step %d: %w", i+1, err)
		}
		r.printf("setup: %s", oneLine(cut(cmd, 120)))
		res, err := execute.Run(ctx, execute.Spec{Argv: []string{"sh", "-c", cmd}, Dir: r.o.Workspace, Env: r.o.Env})
		if err != nil {
			return nil, fmt.Errorf("setup step %d: %w", i+1, err)
		}
		if res.ExitCode != 0 {
			return nil, &SetupError{Step: i + 1, Line: s.Shell.line(), Command: cmd, ExitCode: res.ExitCode, Stderr: strings.TrimSpace(res.Stderr)}
		}
		if s.As != "" {
			vars[s.As] = strings.TrimRight(res.Stdout, "\n")
		}
	}
	return vars, nil
}

// SetupError is a setup step that failed: the instance is not started,
// and the steps run again next time.
type SetupError struct {
	Step, Line, ExitCode int
	Command, Stderr      string
}

func (e *SetupError) Error() string {
	msg := fmt.Sprintf("setup step %d (line %d) failed with exit status %d: %s", e.Step, e.Line, e.ExitCode, e.Command)
	if e.Stderr != "" {
		msg += "\n" + cut(e.Stderr, 2000)
	}
	return msg
}

// line is where the text starts in the file (0 when unknown).
func (t Text) line() int {
	if t.node == nil {
		return 0
	}
	return t.node.Line
}

// kickoff posts the kickoff once. A runner killed between posting it and
// recording that finds it on the channel instead of posting it twice.
func (r *runner) kickoff(ctx context.Context) error {
	st := r.state
	text, err := r.f.Kickoff.Expand(r.vars)
	if err != nil {
		return fmt.Errorf("kickoff: %w", err)
	}
	if strings.TrimSpace(text) != "" {
		entries, err := r.p.Read(ctx, board.ReadOptions{})
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.From == board.System && strings.TrimSpace(e.Message) == strings.TrimSpace(text) {
				st.KickoffSeq = e.Seq
			}
		}
		if st.KickoffSeq == 0 {
			e, err := r.p.Append(ctx, board.System, text)
			if err != nil {
				return fmt.Errorf("post the kickoff: %w", err)
			}
			st.KickoffSeq = e.Seq
			if len(e.Mentions) == 0 {
				r.printf("warning: the kickoff mentions no agent; nothing starts until a message does (delta workflow send MESSAGE --to AGENT@%s)", r.o.Instance)
			}
		}
	}
	if strings.TrimSpace(text) == "" {
		r.printf("no kickoff: the agents start when a message mentions them (delta workflow send MESSAGE --to AGENT@%s)", r.o.Instance)
	}
	st.KickoffDone = true
	return WriteState(r.dir, st)
}
