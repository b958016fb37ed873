package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deltakit/delta/lib/clitest"
)

func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }

// TestScripts runs testdata/script/*.txtar against the real binaries, each
// script with an OTLP receiver of its own in this process
// (OTEL_EXPORTER_OTLP_ENDPOINT points at it) and the command
//
//	spans
//
// which prints the spans received since the last spans, one a line: the
// name, then the trace id, then the attributes the script may match.
func TestScripts(t *testing.T) {
	clitest.Run(t, "testdata/script",
		clitest.WithExamples(),
		clitest.WithSetup(func(env *testscript.Env) error {
			r := startReceiver()
			env.Defer(r.srv.Close)
			env.Values["receiver"] = r
			env.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.srv.URL)
			return nil
		}),
		clitest.WithCmds(map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"spans": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) > 0 {
					ts.Fatalf("usage: spans")
				}
				r := ts.Value("receiver").(*receiver)
				for _, s := range r.drain() {
					a := attrMap(s.Attributes)
					fmt.Fprintf(ts.Stdout(), "%s trace=%s op=%v tool=%v in=%v out=%v\n", s.Name, hex.EncodeToString(s.TraceId),
						a["gen_ai.operation.name"], a["gen_ai.tool.name"], a["gen_ai.usage.input_tokens"], a["gen_ai.usage.output_tokens"])
				}
			},
		}))
}
