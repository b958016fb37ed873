package contextgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/engine"
	"github.com/deltakit/delta/lib/journal"
	"github.com/deltakit/delta/lib/llm"
)

// testRun is a run whose agent home, workspace and journal live in temp
// dirs, with the given sources and journal events.
func testRun(t testing.TB, events []journal.Event, sources ...agent.ContextSource) engine.RunInfo {
	t.Helper()
	home, work := t.TempDir(), t.TempDir()
	runDir := filepath.Join(work, ".delta", "r1")
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines []byte
	for _, ev := range events {
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, data...), '\n')
	}
	jp := filepath.Join(runDir, "journal.jsonl")
	if err := os.WriteFile(jp, lines, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range sources {
		sources[i].Index = i
		sources[i].Line = 2 + 3*i
	}
	a := &agent.Agent{Home: home, Context: agent.ContextConfig{Path: filepath.Join(home, "context.yaml"), Sources: sources}}
	return engine.RunInfo{RunID: "r1", RunDir: runDir, JournalPath: jp, AgentHome: home, WorkDir: work, Agent: a}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestBuildFileAndJournal(t *testing.T) {
	run := testRun(t, journalOf(user("hello")),
		agent.ContextSource{Type: agent.SourceFile, ID: "system_prompt", Path: "${AGENT_HOME}/system_prompt.md"},
		agent.ContextSource{Type: agent.SourceFile, ID: "workspace_guide", Path: "${CWD}/DELTA.md", OnMissing: "skip"},
		agent.ContextSource{Type: agent.SourceFile, Path: "${CWD}/notes.md"},
		agent.ContextSource{Type: agent.SourceJournal, ID: "conversation"},
	)
	writeFile(t, filepath.Join(run.AgentHome, "system_prompt.md"), "You are helpful.")
	writeFile(t, filepath.Join(run.WorkDir, "notes.md"), "notes")
	got, err := New().Build(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Message{
		{Role: "system", Content: "# Context Block: system_prompt\n\nYou are helpful.", Name: "system_prompt"},
		{Role: "system", Content: "# Context Block: source_3\n\nnotes", Name: "source_3"},
		{Role: "user", Content: "hello"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Build() mismatch (-want +got):\n%s", diff)
	}
}

func TestBuildNoJournalFile(t *testing.T) {
	run := testRun(t, nil, agent.ContextSource{Type: agent.SourceJournal})
	run.JournalPath = filepath.Join(run.WorkDir, "none", "journal.jsonl")
	got, err := New().Build(context.Background(), run)
	if err != nil || len(got) != 0 {
		t.Errorf("Build() = %v, %v; want no messages and no error", got, err)
	}
}

func TestBuildTornJournal(t *testing.T) {
	run := testRun(t, journalOf(user("a")), agent.ContextSource{Type: agent.SourceJournal})
	f, err := os.OpenFile(run.JournalPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"USER_MESS`)
	f.Close()
	got, err := New().Build(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]llm.Message{{Role: "user", Content: "a"}}, got); diff != "" {
		t.Errorf("Build() mismatch (-want +got):\n%s", diff)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name    string
		src     agent.ContextSource
		script  string // written to ${AGENT_HOME}/gen.sh
		want    error
		message []string // substrings of the error text
	}{
		{
			name:    "missing file",
			src:     agent.ContextSource{Type: agent.SourceFile, ID: "guide", Path: "${CWD}/DELTA.md"},
			want:    ErrMissing,
			message: []string{`context source #1 "guide" (file, `, "context.yaml:2", "DELTA.md", "on_missing: skip"},
		},
		{
			name:    "generator exit code and stderr",
			src:     computed("summary", "${AGENT_HOME}/gen.sh"),
			script:  "#!/bin/sh\necho something broke >&2\nexit 3\n",
			want:    ErrGenerator,
			message: []string{`"summary"`, "exited with code 3", "something broke"},
		},
		{
			name:    "generator not found",
			src:     computed("summary", "${AGENT_HOME}/nope.sh"),
			want:    ErrGenerator,
			message: []string{"start", "nope.sh"},
		},
		{
			name:    "generator timeout",
			src:     withTimeout(computed("slow", "${AGENT_HOME}/gen.sh"), 200),
			script:  "#!/bin/sh\nsleep 30\n",
			want:    ErrTimeout,
			message: []string{`"slow"`, "200ms"},
		},
		{
			name:    "generator wrote nothing",
			src:     computed("summary", "${AGENT_HOME}/gen.sh"),
			script:  "#!/bin/sh\nexit 0\n",
			want:    ErrMissing,
			message: []string{"summary.md"},
		},
		{
			name:    "jq syntax",
			src:     agent.ContextSource{Type: agent.SourceComputedFile, ID: "fold", Generator: &agent.Generator{JQ: ".[] | "}},
			want:    ErrJQ,
			message: []string{`"fold"`, "parse"},
		},
		{
			name: "unknown type",
			src:  agent.ContextSource{Type: "vector"},
			want: ErrSource,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := testRun(t, nil, tt.src)
			if tt.script != "" {
				writeFile(t, filepath.Join(run.AgentHome, "gen.sh"), tt.script)
			}
			_, err := New().Build(context.Background(), run)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Build() error = %v, want %v", err, tt.want)
			}
			var se *SourceError
			if !errors.As(err, &se) || se.Index != 0 {
				t.Errorf("Build() error %v is not a SourceError for source 0", err)
			}
			for _, s := range tt.message {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Build() error %q does not mention %q", err, s)
				}
			}
		})
	}
}

// TestComputedFileStaleOutput: output_path left by an earlier build is
// removed before the generator runs, so a generator that exits 0 without
// writing is caught (on_missing) instead of serving the old text.
func TestComputedFileStaleOutput(t *testing.T) {
	for _, tt := range []struct {
		onMissing string
		want      error
	}{{"error", ErrMissing}, {"skip", nil}} {
		src := computed("summary", "${AGENT_HOME}/gen.sh")
		src.OnMissing = tt.onMissing
		run := testRun(t, nil, src)
		writeFile(t, filepath.Join(run.AgentHome, "gen.sh"), "#!/bin/sh\nexit 0\n")
		stale := filepath.Join(run.WorkDir, ".delta", "context_artifacts", "summary.md")
		writeFile(t, stale, "STALE\n")
		got, err := New().Build(context.Background(), run)
		if !errors.Is(err, tt.want) {
			t.Fatalf("on_missing %s: Build() error = %v, want %v", tt.onMissing, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), "exited 0 without writing output_path") {
			t.Errorf("on_missing %s: error %q does not say the generator wrote nothing", tt.onMissing, err)
		}
		for _, m := range got {
			if strings.Contains(m.Content, "STALE") {
				t.Errorf("on_missing %s: context holds the stale output: %q", tt.onMissing, m.Content)
			}
		}
		if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("on_missing %s: the stale output is still there (%v)", tt.onMissing, err)
		}
	}
}

func computed(id, cmd string) agent.ContextSource {
	return agent.ContextSource{Type: agent.SourceComputedFile, ID: id,
		Generator: &agent.Generator{Command: []string{cmd}}, OutputPath: "${CWD}/.delta/context_artifacts/summary.md"}
}

func withTimeout(s agent.ContextSource, ms int) agent.ContextSource {
	s.Generator.TimeoutMS = ms
	return s
}

func TestComputedFileGenerator(t *testing.T) {
	src := computed("env", "${AGENT_HOME}/gen.sh")
	src.Generator.Command = append(src.Generator.Command, "${CWD}")
	run := testRun(t, nil, src)
	t.Setenv("DEMO_API_KEY", "sk-secret")
	writeFile(t, filepath.Join(run.AgentHome, "gen.sh"), `#!/bin/sh
out=$OUTPUT_PATH
mkdir -p "$(dirname $out)"
{
  echo "arg=$1"
  echo "agent_home=$AGENT_HOME run_dir=$RUN_DIR"
  echo "pwd=$(pwd)"
  echo "run=$DELTA_RUN_ID"
  echo "home=$DELTA_AGENT_HOME"
  echo "cwd=$DELTA_CWD"
  echo "journal=$JOURNAL_PATH"
  echo "secret=${DEMO_API_KEY:-filtered}"
} > $out
`)
	got, err := New().Build(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Context Block: env\n\n" + strings.Join([]string{
		"arg=" + run.WorkDir, "agent_home=" + run.AgentHome + " run_dir=" + run.RunDir, "pwd=" + run.WorkDir, "run=r1", "home=" + run.AgentHome,
		"cwd=" + run.WorkDir, "journal=" + run.JournalPath, "secret=filtered"}, "\n") + "\n"
	if len(got) != 1 {
		t.Fatalf("Build() = %d messages, want 1", len(got))
	}
	if diff := cmp.Diff(want, got[0].Content); diff != "" {
		t.Errorf("generator output (-want +got):\n%s", diff)
	}
}

func TestJQGenerator(t *testing.T) {
	events := journalOf(
		user("task"),
		thought("I decided to list", call("a", "ls")), result("a", "ls", "x"),
		thought("", call("b", "ls"), call("c", "cat")), result("b", "ls", "y"), result("c", "cat", "z"),
	)
	tests := []struct {
		name string
		gen  agent.Generator
		file string // jq_file content
		want string
	}{
		{
			name: "strings joined with newlines",
			gen:  agent.Generator{JQ: `.[] | select(.type == "ACTION_RESULT") | .tool_name`},
			want: "ls\nls\ncat",
		},
		{
			name: "other values JSON-encoded",
			gen:  agent.Generator{JQ: `map(select(.type == "ACTION_RESULT")) | group_by(.tool_name) | map({(.[0].tool_name): length}) | add`},
			want: `{"cat":1,"ls":2}`,
		},
		{
			name: "variables",
			gen:  agent.Generator{JQ: `$run_id`},
			want: "r1",
		},
		{
			name: "jq_file relative to the agent home",
			gen:  agent.Generator{JQFile: "fold.jq"},
			file: `"## Decisions", (.[] | select(.type == "THOUGHT" and ((.content // "") | test("decided"))) | "- " + .content)`,
			want: "## Decisions\n- I decided to list",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gen := tt.gen
			src := agent.ContextSource{Type: agent.SourceComputedFile, ID: "fold", Generator: &gen, OutputPath: "${CWD}/out/fold.md"}
			run := testRun(t, events, src)
			if tt.file != "" {
				writeFile(t, filepath.Join(run.AgentHome, "fold.jq"), tt.file)
			}
			got, err := New().Build(context.Background(), run)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff("# Context Block: fold\n\n"+tt.want, got[0].Content); diff != "" {
				t.Errorf("jq output (-want +got):\n%s", diff)
			}
			written, err := os.ReadFile(filepath.Join(run.WorkDir, "out", "fold.md"))
			if err != nil || string(written) != tt.want {
				t.Errorf("output_path = %q, %v; want %q", written, err, tt.want)
			}
		})
	}
}

func TestMaxTokensFile(t *testing.T) {
	run := testRun(t, nil, agent.ContextSource{Type: agent.SourceFile, ID: "big", Path: "${CWD}/big.md", MaxTokens: 50})
	writeFile(t, filepath.Join(run.WorkDir, "big.md"), strings.Repeat("0123456789", 100))
	parts, err := New().BuildParts(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	content := strings.TrimPrefix(parts[0].Messages[0].Content, "# Context Block: big\n\n")
	if !parts[0].Truncated || !strings.Contains(content, "[truncated by delta:") || !strings.Contains(content, "of 1000 characters shown (max_tokens: 50)]") {
		t.Errorf("truncated content = %q, want a visible marker", content)
	}
	if n := llm.TokensOf(len(content)); n > 50 {
		t.Errorf("truncated content is %d tokens, want at most 50", n)
	}
}

func TestMaxTokensJournal(t *testing.T) {
	var evs []journal.Event
	evs = append(evs, user("task"))
	for i := range 10 {
		id := string(rune('a' + i))
		evs = append(evs, thought("", call(id, "cat")), result(id, "cat", strings.Repeat("x", 400)))
	}
	run := testRun(t, journalOf(evs...), agent.ContextSource{Type: agent.SourceJournal, MaxTokens: 350})
	parts, err := New().BuildParts(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	msgs := parts[0].Messages
	if err := validConversation(msgs); err != nil {
		t.Fatal(err)
	}
	if msgs[0].Content != "task" || !isNotice(msgs[1]) || !strings.Contains(msgs[1].Content, "omitted to fit max_tokens: 350") {
		t.Errorf("first messages = %+v, want the task then the omission notice", msgs[:2])
	}
	if got := assistants(msgs); got != 3 {
		t.Errorf("kept %d iterations, want 3 (each is ~101 tokens)", got)
	}

	// A budget smaller than the latest iteration keeps it whole, with a warning.
	run.Agent.Context.Sources[0].MaxTokens = 20
	var stderr strings.Builder
	msgs, err = (&Builder{Stderr: &stderr}).Build(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if got := assistants(msgs); got != 1 || !strings.Contains(stderr.String(), "over its max_tokens of 20; it is kept whole") {
		t.Errorf("kept %d iterations, warning %q; want 1 and a warning", got, stderr.String())
	}
}

func TestBuildPartsOrderAndTokens(t *testing.T) {
	run := testRun(t, journalOf(user("12345678")),
		agent.ContextSource{Type: agent.SourceJournal, ID: "j"},
		agent.ContextSource{Type: agent.SourceFile, ID: "f", Path: "${CWD}/f.md"},
	)
	writeFile(t, filepath.Join(run.WorkDir, "f.md"), "abcd")
	parts, err := New().BuildParts(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	if parts[0].Source.ID != "j" || parts[0].Tokens != 2 || parts[1].Source.ID != "f" {
		t.Errorf("parts = %+v, want journal (2 tokens) then file", parts)
	}
}

func BenchmarkBuildJournal10k(b *testing.B) {
	var evs []journal.Event
	evs = append(evs, user("task"))
	for i := 0; len(evs) < 10000; i++ {
		id := "c" + string(rune('a'+i%26)) + strings.Repeat("x", i%7)
		evs = append(evs,
			thought("thinking about step", llm.ToolCall{ID: id, Name: "cat", Arguments: `{"path":"f.go"}`}),
			journal.Event{Type: journal.ActionRequest, CallID: id, ToolName: "cat"},
			result(id, "cat", strings.Repeat("line of output\n", 20)))
	}
	run := testRun(b, journalOf(evs...), agent.ContextSource{Type: agent.SourceJournal, MaxIterations: 50})
	ctx := context.Background()
	builder := New()
	b.ResetTimer()
	for b.Loop() {
		if _, err := builder.Build(ctx, run); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConversation10k(b *testing.B) {
	var evs []journal.Event
	evs = append(evs, user("task"))
	for i := 0; len(evs) < 10000; i++ {
		id := fmt.Sprintf("c%d", i)
		evs = append(evs, thought("thinking", llm.ToolCall{ID: id, Name: "cat", Arguments: `{}`}), result(id, "cat", "out"))
	}
	evs = journalOf(evs...)
	for b.Loop() {
		Conversation(evs, 50)
	}
}

// TestJournalTokensAreItsMessages: a journal source's Tokens, taken from
// the counts its conversation keeps, is the estimate of the messages it
// gives, whole or cut by max_iterations or max_tokens (with the omission
// notice), joined or in pieces, with a call still unanswered.
func TestJournalTokensAreItsMessages(t *testing.T) {
	evs := []journal.Event{user("task ünïcode")}
	for i := range 6 {
		id := string(rune('a' + i))
		evs = append(evs, thought("thinking ✓", call(id, "cat")), result(id, "cat", strings.Repeat("é", 100*i)))
	}
	evs = append(evs, user("more"), thought("", call("z", "cat"))) // unanswered
	for _, src := range []agent.ContextSource{
		{Type: agent.SourceJournal}, {Type: agent.SourceJournal, MaxIterations: 2}, {Type: agent.SourceJournal, MaxTokens: 150},
	} {
		run := testRun(t, journalOf(slices.Clone(evs)...), src)
		for _, pieces := range []bool{false, true} {
			b := New()
			b.Pieces = pieces
			parts, err := b.BuildParts(context.Background(), run)
			if err != nil {
				t.Fatal(err)
			}
			if want := llm.TokensOf(llm.MessageChars(parts[0].All())); parts[0].Tokens != want {
				t.Errorf("source %+v, pieces %v: Tokens = %d, want %d", src, pieces, parts[0].Tokens, want)
			}
		}
	}
}
