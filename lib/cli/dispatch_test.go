package cli

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// testGrammar has the shape of delta-run's: a default command that takes
// arguments and flags, commands with subcommands and aliases, an enum flag
// read from the environment, and help texts with variables.
type testGrammar struct {
	ManFlag

	Go   goCmd   `cmd:"" default:"withargs" help:"Go somewhere (${version})."`
	Stop stopCmd `cmd:"" aliases:"halt" help:"Stop."`
	Conf confCmd `cmd:"" help:"Settings."`
	List listCmd `cmd:"" name:"list-all" help:"List everything."`
}

type goCmd struct {
	Message string   `short:"m" help:"What to say, default ${default}." default:"hi"`
	Where   string   `short:"w" help:"Where."`
	Format  string   `enum:"text,json" default:"text" env:"TESTCLI_FORMAT" help:"One of ${enum}."`
	Yes     bool     `short:"y" help:"Do not ask."`
	Agent   []string `arg:"" optional:"" help:"Who goes."`
}

func (c *goCmd) Run(std Stdio) error { return report(std, "go", c) }

type stopCmd struct {
	ID  string `name:"id" required:"" help:"Which."`
	All bool   `help:"Every one."`
}

func (c *stopCmd) Run(std Stdio) error { return report(std, "stop", c) }

type confCmd struct {
	Show showCmd `cmd:"" help:"Show them."`
}

type showCmd struct {
	Key string `arg:"" optional:"" help:"Which key."`
}

func (c *showCmd) Run(std Stdio) error { return report(std, "conf show", c) }

type listCmd struct {
	Format string `enum:"text,json" default:"text" env:"TESTCLI_FORMAT" help:"One of ${enum}."`
}

func (c *listCmd) Run(std Stdio) error { return report(std, "list-all", c) }

// report prints the command that ran and every value it was given, so two
// runs compare by their output.
func report(std Stdio, name string, cmd any) error {
	_, err := fmt.Fprintf(std.Out, "%s %+v\n", name, cmd)
	return err
}

// argLists are command lines of every kind: the default command with and
// without its name, flags before and after arguments, other commands by
// name and alias, a subcommand, help, the version, and
// mistakes (unknown flags and commands, a missing required flag, a default
// command's flag before another command, a bad enum, "--").
var argLists = [][]string{
	{}, {"--version"}, {"--version", "-y"}, {"go", "--version"}, {"-m", "hello"}, {"go", "-m", "x", "bob"},
	{"bob", "-w", "ws"}, {"-y", "-m", "x", "--", "-z"}, {"--", "stop"}, {"stop", "--id", "r1"},
	{"halt", "--id", "r1", "--all"}, {"stop"}, {"stop", "--bogus"}, {"conf", "show", "k"}, {"conf"},
	{"list-all"}, {"list-all", "--format", "json"}, {"list-all", "--format", "yaml"}, {"-m", "x", "stop", "--id", "r"},
	{"-m", "stop"}, {"-m", "halt"}, {"--format", "xml"}, {"--help"}, {"-h"}, {"stop", "--help"}, {"-yh"},
	{"conf", "show", "--help"}, {"--bogus"}, {"-q"}, {"list"}, {"--version=true"}, {"-m=x"},
}

// TestOnlyChosenCommandChangesNothing runs every argument list through Run
// with and without OnlyChosenCommand, and with the environment setting an
// enum both right and wrong: stdout, stderr and the exit code must be the
// same byte for byte.
func TestOnlyChosenCommandChangesNothing(t *testing.T) {
	for _, env := range []string{"", "json", "yaml"} {
		t.Setenv("TESTCLI_FORMAT", env)
		for _, args := range argLists {
			whole, wOut, wErr := runGrammar(args)
			chosen, cOut, cErr := runGrammar(args, OnlyChosenCommand)
			if whole != chosen || wOut != cOut || wErr != cErr {
				t.Errorf("TESTCLI_FORMAT=%q %q:\nwhole:  exit %d, stdout %q, stderr %q\nchosen: exit %d, stdout %q, stderr %q",
					env, args, whole, wOut, wErr, chosen, cOut, cErr)
			}
		}
	}
}

func runGrammar(args []string, options ...kong.Option) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Run("testcli", &testGrammar{}, args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errOut}, options...)
	return code, out.String(), errOut.String()
}

// TestChosenCommandModel checks that the narrowed model is used where it
// can be (or the option would buy nothing) and refused where the whole
// grammar could read the arguments differently.
func TestChosenCommandModel(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		narrow bool
	}{
		{[]string{}, true},
		{[]string{"-m", "hello", "bob"}, true},
		{[]string{"stop", "--id", "r"}, true},
		{[]string{"halt", "--id", "r"}, true},
		{[]string{"conf", "show"}, true},
		{[]string{"list-all"}, true},
		{[]string{"-m", "stop"}, false},      // stop could be the command
		{[]string{"--help"}, false},          // help describes the whole grammar
		{[]string{"-yh"}, false},             // -h in a cluster
		{[]string{"stop", "--bogus"}, false}, // errors come from the whole model
		{[]string{"--man"}, false},
	} {
		grammar := &testGrammar{}
		ctx := parseChosen(grammar, tc.args, []kong.Option{kong.Name("testcli"), kong.Writers(io.Discard, io.Discard),
			kong.Exit(func(int) { t.Fatalf("%q exited in the narrowed parse", tc.args) }), kong.Vars{"version": "v"}})
		if (ctx != nil) != tc.narrow {
			t.Errorf("%q: narrowed parse used = %v, want %v", tc.args, ctx != nil, tc.narrow)
		}
		if ctx == nil && !reflect.DeepEqual(grammar, &testGrammar{}) {
			t.Errorf("%q: refused narrowed parse left the grammar filled: %+v", tc.args, grammar)
		}
	}
}

// TestVersionWithoutModel checks the lone --version's answer against
// kong's: the same line, exit 0.
func TestVersionWithoutModel(t *testing.T) {
	if !versionOnly(&testGrammar{}, []string{"--version"}, nil) {
		t.Fatal("a lone --version is not answered before the model")
	}
	if versionOnly(&testGrammar{}, []string{"--version"}, []kong.Option{kong.Vars{"version": "mine"}}) {
		t.Error("--version answered before the model although an option sets its text")
	}
	if versionOnly(&struct{ Go goCmd }{}, []string{"--version"}, nil) {
		t.Error("--version answered for a grammar without ManFlag")
	}
}
