package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/deltakit/delta/lib/clitest"
	"github.com/deltakit/delta/lib/journal"
)

func TestMain(m *testing.M) { os.Exit(clitest.Main(m)) }

// TestScripts runs testdata/script/*.txtar against the real binaries, with
// $EXAMPLES pointing at the repository's examples, two commands to compare
// delta-context with what delta-run sent (lastrequest and rewind), and
// MODROOT plus the real Go caches to build the host's test plugin.
func TestScripts(t *testing.T) {
	clitest.Run(t, "testdata/script", clitest.WithGoBuild(), clitest.WithExamples(), clitest.WithCmds(map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"lastrequest": lastRequest,
		"rewind":      rewind,
		"crash":       crash,
	}))
}

// onlyRun returns the directory of the single run in workspace dir.
func onlyRun(ts *testscript.TestScript, dir string) string {
	runs, err := filepath.Glob(filepath.Join(ts.MkAbs(dir), ".delta", "*", "journal.jsonl"))
	ts.Check(err)
	if len(runs) != 1 {
		ts.Fatalf("want one run in %s, found %d", dir, len(runs))
	}
	return filepath.Dir(runs[0])
}

// lastRequest prints the messages of the workspace's last model request
// (io/invocations) as delta-context --jq . prints JSON.
func lastRequest(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lastrequest WORKSPACE")
	}
	files, err := filepath.Glob(filepath.Join(onlyRun(ts, args[0]), "io", "invocations", "*.json"))
	ts.Check(err)
	if len(files) == 0 {
		ts.Fatalf("no invocation records")
	}
	iteration := func(f string) int {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		n, _ := strconv.Atoi(base[strings.LastIndex(base, "_")+1:])
		return n
	}
	sort.Slice(files, func(i, j int) bool { return iteration(files[i]) < iteration(files[j]) })
	var rec struct {
		Request struct {
			Messages any `json:"messages"`
		} `json:"request"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(files[len(files)-1])), &rec))
	ts.Check(printJSON(ts.Stdout(), rec.Request.Messages))
}

// rewind cuts the workspace's journal before its last THOUGHT: the state
// in which the engine built its last request.
func rewind(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: rewind WORKSPACE")
	}
	path := filepath.Join(onlyRun(ts, args[0]), "journal.jsonl")
	lines := strings.SplitAfter(ts.ReadFile(path), "\n")
	cut := -1
	for i, line := range lines {
		var ev journal.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == journal.Thought {
			cut = i
		}
	}
	if cut < 0 {
		ts.Fatalf("no THOUGHT in %s", path)
	}
	ts.Check(os.WriteFile(path, []byte(strings.Join(lines[:cut], "")), 0o644))
}

// crash leaves the workspace's run as kill -9 during its last tool call
// would: the journal ends at the last ACTION_REQUEST and metadata.json says
// RUNNING for a process that is gone. The model call records go too, so
// that lastrequest then sees the resumed run's first.
func crash(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: crash WORKSPACE")
	}
	dir := onlyRun(ts, args[0])
	path := filepath.Join(dir, "journal.jsonl")
	lines := strings.SplitAfter(ts.ReadFile(path), "\n")
	cut := -1
	for i, line := range lines {
		var ev journal.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == journal.ActionRequest {
			cut = i + 1
		}
	}
	if cut < 0 {
		ts.Fatalf("no ACTION_REQUEST in %s", path)
	}
	ts.Check(os.WriteFile(path, []byte(strings.Join(lines[:cut], "")), 0o644))
	ts.Check(os.RemoveAll(filepath.Join(dir, "io", "invocations")))
	metaPath := filepath.Join(dir, "metadata.json")
	var meta map[string]any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(metaPath)), &meta))
	meta["status"], meta["pid"] = "RUNNING", 1<<30 // above Linux's pid_max: no such process
	data, err := json.Marshal(meta)
	ts.Check(err)
	ts.Check(os.WriteFile(metaPath, data, 0o644))
}
