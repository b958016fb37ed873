package main

import (
	"io"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestParseExecAgreesWithKong checks that every exec line the fast path
// takes means exactly what kong makes of it, and that it leaves the rest
// (help, unknown flags, bad values) to kong.
func TestParseExecAgreesWithKong(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		fast bool
	}{
		{"id only", []string{"exec", "sess_a"}, true},
		{"command words", []string{"exec", "sess_a", "echo", "hi there"}, true},
		{"timeout before", []string{"exec", "--timeout", "3s", "sess_a", "ls"}, true},
		{"timeout with =", []string{"exec", "sess_a", "--timeout=250ms", "ls"}, true},
		{"max-output after", []string{"exec", "sess_a", "ls", "--max-output", "100"}, true},
		{"both", []string{"exec", "--max-output=0", "--timeout=0s", "sess_a", "true"}, true},
		{"double dash", []string{"exec", "sess_a", "--", "ls", "-l"}, true},
		{"dash argument", []string{"exec", "sess_a", "ls", "-l"}, false},
		{"help", []string{"exec", "--help"}, false},
		{"short help", []string{"exec", "sess_a", "-h"}, false},
		{"unknown flag", []string{"exec", "--timeot", "3s", "sess_a"}, false},
		{"bad duration", []string{"exec", "--timeout", "3", "sess_a"}, false},
		{"negative value", []string{"exec", "--timeout", "-1s", "sess_a"}, false},
		{"bad number", []string{"exec", "--max-output=x", "sess_a"}, false},
		{"missing value", []string{"exec", "sess_a", "--timeout"}, false},
		{"no id", []string{"exec"}, false},
		{"other command", []string{"list", "--all"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseExec(tc.args)
			if ok != tc.fast {
				t.Fatalf("parseExec(%q) ok = %v, want %v", tc.args, ok, tc.fast)
			}
			if !ok {
				return
			}
			var grammar CLI
			parser, err := kong.New(&grammar, kong.Exit(func(int) { t.Fatal("kong exited") }), kong.Writers(io.Discard, io.Discard))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := parser.Parse(tc.args); err != nil {
				t.Fatalf("kong rejects %q, which the fast path takes: %v", tc.args, err)
			}
			if diff := cmp.Diff(grammar.Exec, got, cmp.AllowUnexported(execCmd{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("parseExec(%q) differs from kong (-kong +fast):\n%s", tc.args, diff)
			}
		})
	}
}
