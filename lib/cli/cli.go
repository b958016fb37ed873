// Package cli is the small shared frame of every Delta binary: kong parsing
// with a hidden --man flag, exit codes carried by errors, and the
// "NAME: error: …" / "NAME: hint: …" lines on stderr.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/alecthomas/kong"
	"github.com/deltakit/delta/lib/runs"
	"golang.org/x/term"
)

// ExitUsage is the exit code of a bad command line (kong's parse errors
// among them). It is the one code of the CLI's own: the others are the
// run table of lib/runs (runs.ExitFailed, runs.ExitConfig …), which every
// Delta command shares.
const ExitUsage = 2

// Error is an error with an exit code and an optional hint saying what to do.
type Error struct {
	Code int
	Err  error
	Hint string
	// Label replaces "error" in the "NAME: error: …" line, for outcomes
	// that carry an exit code without being failures (e.g. "interrupted").
	Label string
	// Silent makes Report print nothing: the command has already told the
	// user what to do (e.g. the guidance of a run waiting for input).
	Silent bool
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ExitCode implements kong.ExitCoder.
func (e *Error) ExitCode() int { return e.Code }

// Errorf returns an *Error with the given exit code and hint ("" for none).
func Errorf(code int, hint, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...), Hint: hint}
}

// WithCode wraps err with an exit code and hint, keeping errors.Is chains.
func WithCode(code int, hint string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err, Hint: hint}
}

// ParseErrorHook is an option of Run: when the command line does not
// parse, Run calls it with stdout and the error before printing the usual
// error line and returning ExitUsage. Commands whose reader is an agent
// (delta-sessions, delta-pty) use it to print the error as JSON on stdout.
type ParseErrorHook func(stdout io.Writer, err error)

// Apply implements kong.Option; the hook is Run's, kong has nothing to do.
func (ParseErrorHook) Apply(*kong.Kong) error { return nil }

// exitSignal unwinds kong's Exit callback (used by --help and --man) back to
// Run without calling os.Exit deep inside the program.
type exitSignal struct{ code int }

// Stdio is a command's standard streams. Every command gets them the same
// way, as a parameter of its Run method (cli.Run binds them), and touches
// no other: main passes the process's (OSStdio), a test its own buffers,
// so a command runs in-process exactly as from a shell.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// OSStdio is the process's standard streams.
func OSStdio() Stdio { return Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// IsTerminal reports whether stream (one of a Stdio's) is a terminal: only
// an *os.File can be, so buffers and pipes of tests never are.
func IsTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// File is stream's file when it is one (a command that must hand a real
// descriptor on, to a terminal or a plugin, needs it), else nil.
func File(stream any) *os.File {
	f, _ := stream.(*os.File)
	return f
}

// Run parses args into grammar, runs the selected command's Run method,
// prints any error as "NAME: error: …" (plus a hint line) to std.Err, and
// returns the exit code. main is
//
//	func main() { os.Exit(cli.Run(name, &CLI{}, os.Args[1:], cli.OSStdio())) }
//
// and nothing else in a binary exits. A command is a kong struct whose Run
// method takes the Stdio (and any other value bound with kong.Bind):
//
//	type HelloCmd struct {
//		Name string `arg:"" help:"Who to greet."`
//	}
//
//	func (c *HelloCmd) Run(std cli.Stdio) error {
//		if c.Name == "" {
//			return cli.Errorf(cli.ExitUsage, "give a name", "no name given")
//		}
//		_, err := fmt.Fprintf(std.Out, "hello, %s\n", c.Name)
//		return err
//	}
//
// Data goes to std.Out, messages to std.Err, errors are returned (with an
// exit code and a hint: see Error), and input comes from std.In.
func Run(name string, grammar any, args []string, std Stdio, options ...kong.Option) (code int) {
	stdout, stderr := std.Out, std.Err
	defer func() {
		if r := recover(); r != nil {
			if s, ok := r.(exitSignal); ok {
				code = s.code
				return
			}
			panic(r)
		}
	}()
	opts := append([]kong.Option{
		kong.Name(name),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { panic(exitSignal{c}) }),
		kong.UsageOnError(),
		kong.Bind(std),
		kong.Vars{"version": name + " " + Version()},
	}, options...)
	if slices.ContainsFunc(options, isChosenCommand) {
		if versionOnly(grammar, args, options) {
			fmt.Fprintln(stdout, name+" "+Version())
			return runs.ExitCompleted
		}
		if ctx := parseChosen(grammar, args, opts); ctx != nil {
			return Report(name, stderr, ctx.Run())
		}
	}
	parser, err := kong.New(grammar, opts...)
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", name, err)
		return runs.ExitFailed
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		for _, o := range options {
			if hook, ok := o.(ParseErrorHook); ok {
				hook(stdout, err)
			}
		}
		fmt.Fprintf(stderr, "%s: error: %v\n", name, err)
		return ExitUsage
	}
	return Report(name, stderr, ctx.Run())
}

// Report prints err (if any) in the standard form and returns its exit code.
func Report(name string, stderr io.Writer, err error) int {
	if err == nil {
		return runs.ExitCompleted
	}
	label := "error"
	var e *Error
	if errors.As(err, &e) {
		if e.Label != "" {
			label = e.Label
		}
	}
	if e == nil || !e.Silent {
		fmt.Fprintf(stderr, "%s: %s: %v\n", name, label, err)
		if e != nil && e.Hint != "" {
			fmt.Fprintf(stderr, "%s: hint: %s\n", name, e.Hint)
		}
	}
	var coder kong.ExitCoder
	if errors.As(err, &coder) {
		return coder.ExitCode()
	}
	return runs.ExitFailed
}

// FindCommand finds another Delta command: next to the running executable
// first (an installation keeps its commands together), then on PATH.
func FindCommand(name string) (string, error) {
	if self, err := os.Executable(); err == nil {
		if resolved, err := filepath.EvalSymlinks(self); err == nil {
			self = resolved
		}
		p := filepath.Join(filepath.Dir(self), name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

// ChildExit is how a command that ran another Delta command (what, e.g.
// "delta-cluster send") ends: the child's exit code passed on without a
// second message, since the child said what went wrong; a child that
// could not run or was killed is an ordinary error.
func ChildExit(what string, err error) error {
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return &Error{Code: ee.ExitCode(), Silent: true, Err: fmt.Errorf("%s exited %d", what, ee.ExitCode())}
	}
	return fmt.Errorf("%s: %w", what, err)
}
