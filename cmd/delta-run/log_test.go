package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gatedAgent is an agent whose one tool waits until WS/go.on exists, so a
// test can look at a run while it is busy.
func gatedAgent(t *testing.T) string {
	return writeAgent(t, "llm:\n  provider: scripted\n  script: script.yaml\ntools:\n  - name: wait\n    exec: \"sh ${AGENT_HOME}/wait.sh\"\n",
		map[string]string{
			"script.yaml": "turns:\n  - content: waiting for the gate\n    tool_calls:\n      - name: wait\n        args: {}\n  - content: done\n",
			"wait.sh":     "while [ ! -e go.on ]; do sleep 0.02; done\necho opened\n",
		})
}

// TestStreamJSONLive: --format stream-json writes a JSON line per journal
// event while the run goes (the tool's ACTION_REQUEST can be read before
// the tool ends), and the RunResult last.
func TestStreamJSONLive(t *testing.T) {
	agentDir := gatedAgent(t)
	ws := t.TempDir()
	cmd := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "sj", "--format", "stream-json")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	var lines []streamLine
	for sc.Scan() {
		var l streamLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if l.SchemaVersion != StreamSchema {
			t.Errorf("line %q has schema_version %q", sc.Text(), l.SchemaVersion)
		}
		lines = append(lines, l)
		if l.Event != nil && l.Event.Type == "ACTION_REQUEST" {
			// Read while the tool waits: open its gate.
			if err := os.WriteFile(filepath.Join(ws, "go.on"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v", err)
	}
	var types []string
	for i, l := range lines {
		if l.RunID != "sj" {
			t.Errorf("line %d has run_id %q, want sj", i+1, l.RunID)
		}
		switch {
		case l.Type == "init" && i == 0:
			types = append(types, "init")
			if l.Cwd != ws && !strings.HasSuffix(l.Cwd, filepath.Base(ws)) || len(l.Tools) == 0 {
				t.Errorf("init line %+v, want the workspace and the tools", l)
			}
		case l.Type == "event" && l.Event != nil:
			types = append(types, string(l.Event.Type))
			if l.Event.Seq != int64(i) {
				t.Errorf("line %d carries seq %d", i+1, l.Event.Seq)
			}
		case l.Type == "result" && l.Result != nil && i == len(lines)-1:
			types = append(types, "result:"+string(l.Result.Status))
			if l.IsError == nil || *l.IsError || l.NumTurns == nil || *l.NumTurns != 2 {
				t.Errorf("result line is_error %v, num_turns %v; want false and 2", l.IsError, l.NumTurns)
			}
		default:
			t.Errorf("line %d: %+v", i+1, l)
		}
	}
	want := "init ENGINE_START USER_MESSAGE THOUGHT ACTION_REQUEST ACTION_RESULT THOUGHT ENGINE_END result:COMPLETED"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("stream = %s\nwant     %s", got, want)
	}
}

// TestLogFollowsAndMatchesLiveStream: log -f shows a running run's events
// as they come and ends when the run does; its text is the live stream.
func TestLogFollowsAndMatchesLiveStream(t *testing.T) {
	agentDir := gatedAgent(t)
	ws := t.TempDir()
	run := deltaRun(t, nil, "run", "--agent", agentDir, "-w", ws, "-m", "go", "--run-id", "lf")
	var live bytes.Buffer
	run.Stderr = &live
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Process.Kill(); run.Wait() })
	waitFor(t, "the tool to start", fileContains(filepath.Join(ws, ".delta", "lf", "journal.jsonl"), "ACTION_REQUEST"))

	follow := deltaRun(t, nil, "log", "-f", "-w", ws, "--last")
	out, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { follow.Process.Kill(); follow.Wait() })
	r := bufio.NewReader(out)
	var got strings.Builder
	for !strings.Contains(got.String(), "→ wait") {
		line, err := r.ReadString('\n')
		got.WriteString(line)
		if err != nil {
			t.Fatalf("log -f ended before the tool call: %v\n%s", err, got.String())
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "go.on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	got.Write(rest)
	if err := follow.Wait(); err != nil {
		t.Fatalf("log -f: %v", err)
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if got.String() != live.String() {
		t.Errorf("log -f output differs from the live stream\nlog:\n%s\nlive:\n%s", got.String(), live.String())
	}
	again, stderr, code := runDelta(t, nil, "log", "--run-id", "lf", "-w", ws)
	if code != 0 || again != live.String() {
		t.Errorf("log of the finished run (exit %d):\n%s\nwant the live stream:\n%s%s", code, again, live.String(), stderr)
	}
}
