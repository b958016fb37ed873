// Package mcp connects Delta to the Model Context Protocol in both
// directions.
//
// As a client, it turns the MCP servers of agent.yaml's mcp_servers into
// one engine.Toolbox (Start): their tools reach the model as SERVER__TOOL
// with the server's own descriptions and JSON schemas, and a call goes
// through the engine like any tool's, so timeouts, output truncation,
// io/tool_executions records, hooks and approvals apply unchanged. A stdio
// server runs under Delta's guard (lib/execute.Start), so it never outlives
// the run, even when delta-run is killed with SIGKILL; it gets a minimal
// environment (agent.CoreEnv without secrets) plus the variables its entry
// names, never the engine's keys.
//
// As a server (Serve), it offers any engine.Toolbox — an agent's command,
// plugin and MCP tools — to MCP clients such as Claude Code or Codex, over
// stdio or streamable HTTP; cmd/delta-mcp is the command.
//
// Everything MCP lives here and in cmd/delta-mcp: the rest of Delta sees
// only engine.Toolbox.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/execute"
	"github.com/deltakit/delta/lib/runs"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stopWait is how long a stdio server may take to exit once its stdin is
// closed, before it is sent SIGTERM.
const stopWait = 2 * time.Second

// server is one connected MCP server.
type server struct {
	cfg     agent.MCPServer
	session *sdk.ClientSession
	proc    *execute.Process // stdio servers
	stderr  *tailWriter      // the end of a stdio server's stderr
	shown   *prefixWriter    // its stderr shown with -v (nil: not shown)
	tools   []*sdk.Tool      // the tools the model may see, in the server's order
	// warnings are what listing its tools noticed (Toolbox.Warnings).
	warnings []string
	stop     *stopper // a stdio server's stdin, which stops it when closed
}

// connect starts (stdio) or reaches (HTTP) one server and initializes the
// MCP session.
func connect(ctx context.Context, cfg agent.MCPServer, opts Options) (*server, error) {
	s := &server{cfg: cfg}
	client := sdk.NewClient(&sdk.Implementation{Name: "delta", Version: cli.Version()}, nil)
	transport := opts.transports[cfg.Name]
	switch {
	case transport != nil:
	case cfg.URL != "":
		headers := map[string]string{}
		for k, v := range cfg.Headers {
			headers[k] = expand(v, opts.Environ)
		}
		transport = &sdk.StreamableClientTransport{Endpoint: cfg.URL, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: headerTransport{headers: headers, base: http.DefaultTransport}}}
	default:
		s.stderr = &tailWriter{max: 4 << 10}
		var errw io.Writer = s.stderr
		if opts.Stderr != nil && opts.Verbose {
			s.shown = newPrefixWriter(opts.Stderr, "[mcp "+cfg.Name+"] ")
			errw = io.MultiWriter(s.stderr, s.shown)
		}
		proc, err := execute.Start(execute.Spec{Argv: append([]string{cfg.Command}, cfg.Args...), Dir: opts.Dir, Env: ServerEnv(cfg, opts.Environ),
			Sandbox: opts.Sandbox}, errw)
		if err != nil {
			return nil, err
		}
		s.proc = proc
		s.stop = &stopper{p: proc}
		transport = &sdk.IOTransport{Reader: proc.Stdout, Writer: s.stop}
	}
	// timeout_ms bounds the start and the MCP handshake too: a server
	// that never answers fails the run instead of holding it.
	wait := opts.StartTimeout
	if cfg.TimeoutMS > 0 {
		wait = time.Duration(cfg.TimeoutMS) * time.Millisecond
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	stopNotice := waitNotice(opts.Stderr, cfg, wait)
	s.stop.connecting(ctx)
	session, err := client.Connect(ctx, transport, nil)
	stopNotice()
	if err != nil {
		// How the server ended is its own doing only when it ended before
		// close stops it.
		s.lost(err)
		switch {
		case parent.Err() != nil && errors.Is(parent.Err(), context.Canceled):
			err = fmt.Errorf("interrupted while waiting for it to start: %w", context.Canceled)
		case errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil:
			err = fmt.Errorf("no answer within %s (its timeout_ms, else the start limit): %w", wait, err)
		}
		err = s.explain(err)
		if notJSON(err) {
			err = fmt.Errorf("%w; a stdio MCP server must write only MCP messages on stdout (its logs go to stderr)", err)
		}
		s.close()
		return nil, err
	}
	s.stop.connected()
	s.session = session
	return s, nil
}

// noticeAfter is how long a server may take to start before the user is
// told what the run waits for.
const noticeAfter = time.Second

// waitNotice tells w, once a server has taken noticeAfter to start and
// answer, which server the command waits for and for how long at most;
// the returned function cancels the notice.
func waitNotice(w io.Writer, cfg agent.MCPServer, wait time.Duration) func() {
	if w == nil {
		return func() {}
	}
	what := cfg.URL
	if what == "" {
		what = strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
	}
	t := time.AfterFunc(noticeAfter, func() {
		fmt.Fprintf(w, "waiting for mcp server %q (%s) to start and answer, at most %s (timeout_ms)...\n", cfg.Name, what, wait)
	})
	return func() { t.Stop() }
}

// StartFailed is the error of a command whose MCP servers did not start
// (Start's error): an interrupt while it waited (exit 130, as any
// interrupt), else a configuration error (126) with Hint.
func StartFailed(err error) error {
	if errors.Is(err, context.Canceled) {
		return &cli.Error{Code: runs.ExitInterrupted, Label: "interrupted", Err: err}
	}
	return cli.WithCode(runs.ExitConfig, Hint, err)
}

// explain adds to err how a stdio server ended, when it has, and what it
// said on stderr.
func (s *server) explain(err error) error {
	if s.proc != nil {
		select {
		case <-s.proc.Done():
			if serr := s.proc.Stop(0); serr != nil {
				err = fmt.Errorf("%w (the server exited: %v)", err, serr)
			} else {
				err = fmt.Errorf("%w (the server exited with status 0)", err)
			}
		default:
		}
	}
	if s.stderr != nil {
		if tail := strings.TrimSpace(s.stderr.String()); tail != "" {
			return fmt.Errorf("%w; its stderr ends with:\n%s", err, tail)
		}
	}
	return err
}

// close ends the session and stops a stdio server (closing its stdin, then
// SIGTERM and SIGKILL to its tree).
func (s *server) close() error {
	var err error
	if s.session != nil {
		err = s.session.Close()
	}
	if s.proc != nil {
		s.proc.Stop(s.stop.wait())
	}
	if s.shown != nil {
		s.shown.flush()
	}
	return err
}

// notJSON reports whether err says the server wrote something that is not
// JSON where an MCP message was expected.
func notJSON(err error) bool {
	var syntax *json.SyntaxError
	return errors.As(err, &syntax) || strings.Contains(err.Error(), "looking for beginning of value")
}

// exitWait is how long a call whose connection broke waits for the
// stdio server's end to be known, so that the error says how it ended.
const exitWait = 2 * time.Second

// lost reports whether err says the connection to the server is gone (it
// exited or closed its stdout); for a stdio server it waits a little for
// the process's end, which explain then reports.
func (s *server) lost(err error) bool {
	if !errors.Is(err, sdk.ErrConnectionClosed) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false
	}
	if s.proc != nil {
		select {
		case <-s.proc.Done():
		case <-time.After(exitWait):
		}
	}
	return true
}

// stopper is a stdio server's stdin as the MCP transport's writer: the
// SDK closes it when the session ends, which stops the server. A server
// given up on during its handshake (its timeout_ms passed, or Ctrl-C) is
// stopped at once instead of being given stopWait to exit: it never
// answered, so there is nothing to wait for, and the user is waiting.
type stopper struct {
	p         *execute.Process
	mu        sync.Mutex
	handshake context.Context // while connecting; nil after
}

func (w *stopper) Write(b []byte) (int, error) { return w.p.Stdin.Write(b) }
func (w *stopper) Close() error {
	w.p.Stop(w.wait())
	return nil
}

// connecting marks the handshake under way, bounded by ctx; connected
// its end.
func (w *stopper) connecting(ctx context.Context) {
	if w != nil {
		w.mu.Lock()
		w.handshake = ctx
		w.mu.Unlock()
	}
}

func (w *stopper) connected() { w.connecting(nil) }

// wait is how long Close lets the server take to exit.
func (w *stopper) wait() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.handshake != nil && w.handshake.Err() != nil {
		return 0
	}
	return stopWait
}

// ServerEnv is the whole environment of a stdio server: the core variables
// (PATH, HOME, LANG, TMPDIR …, agent.CoreEnv) of environ without secrets,
// and the entry's env, whose values expand ${VAR} from environ (the
// engine's own environment, secrets included: naming a key there is how a
// server gets it).
func ServerEnv(cfg agent.MCPServer, environ []string) []string {
	env := agent.FilterEnv(environ, agent.EnvConfig{Inherit: agent.InheritCore})
	names := make([]string, 0, len(cfg.Env))
	for k := range cfg.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		env = append(env, k+"="+expand(cfg.Env[k], environ))
	}
	return env
}

// expand replaces ${VAR} and $VAR in s by their values in environ ("" when
// unset); $$ is a literal $.
func expand(s string, environ []string) string {
	vars := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	s = strings.ReplaceAll(s, "$$", "\x00")
	s = os.Expand(s, func(k string) string { return vars[k] })
	return strings.ReplaceAll(s, "\x00", "$")
}

// headerTransport adds an entry's headers to every request.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// prefixWriter writes each complete line to w with a prefix, so a
// server's messages are told apart from the run's own on stderr.
type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func newPrefixWriter(w io.Writer, prefix string) *prefixWriter {
	return &prefixWriter{w: w, prefix: prefix}
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := strings.IndexByte(string(p.buf), '\n')
		if i < 0 {
			return len(b), nil
		}
		line := p.prefix + string(p.buf[:i+1])
		p.buf = p.buf[i+1:]
		if _, err := io.WriteString(p.w, line); err != nil {
			return len(b), err
		}
	}
}

// flush writes a last line that lacks its newline.
func (p *prefixWriter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) > 0 {
		io.WriteString(p.w, p.prefix+string(p.buf)+"\n")
		p.buf = nil
	}
}

// ErrStart marks a server that could not be started or reached, or whose
// tools could not be listed: a configuration error, reported before the
// run begins.
var ErrStart = errors.New("mcp server did not start")
