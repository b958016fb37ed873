// Command testplugin is a plugin for the host tests: it echoes, fails,
// crashes, panics, hangs, reports its pid, config and the call's run
// variables, keeps a file with the call's record, answers hooks, and writes a
// marker file at start when TESTPLUGIN_MARK names one (so a test can prove
// a refused binary never ran).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/deltakit/delta/plugins/sdk"
)

type plugin struct{ config json.RawMessage }

func (p *plugin) Configure(_ context.Context, c json.RawMessage) error {
	p.config = c
	return nil
}

func (p *plugin) Tools(context.Context) ([]sdk.Tool, error) {
	var tools []sdk.Tool
	for _, n := range []string{"echo", "fail", "crash", "hang", "pid", "config", "sleep_ctx", "big", "huge", "panic", "env", "spawn", "keep", "run_env"} {
		tools = append(tools, sdk.Tool{Name: n, Description: "test tool " + n})
	}
	return tools, nil
}

func (p *plugin) Call(ctx context.Context, req sdk.CallRequest) (sdk.CallResult, error) {
	switch req.Name {
	case "echo":
		return sdk.CallResult{Output: string(req.Arguments) + " in " + req.WorkDir, Data: json.RawMessage(`{"echo":true}`)}, nil
	case "fail":
		return sdk.Errorf("it failed"), nil
	case "crash":
		os.Exit(3)
	case "hang":
		time.Sleep(time.Hour)
	case "pid":
		return sdk.Text(strconv.Itoa(os.Getpid())), nil
	case "config":
		return sdk.Text(string(p.config)), nil
	case "big":
		return sdk.Text(strings.Repeat("x", 60000)), nil
	case "huge":
		return sdk.Text(strings.Repeat("y", 300000)), nil
	case "panic":
		// fd 2 itself: go-plugin streams os.Stderr asynchronously, and
		// the panic would end the process before that stream is sent.
		fmt.Fprintln(os.NewFile(2, "stderr"), "about to panic")
		panic("boom")
	case "env":
		// What the plugin and what it starts see.
		out, err := exec.Command("env").Output()
		if err != nil {
			return sdk.Errorf("env: %v", err), nil
		}
		return sdk.Text(strings.Join(os.Environ(), "\n") + "\n--- child ---\n" + string(out)), nil
	case "spawn":
		// A child the plugin leaves running: it must not outlive the run.
		cmd := exec.Command("sleep", "1000")
		if err := cmd.Start(); err != nil {
			return sdk.Errorf("spawn: %v", err), nil
		}
		return sdk.Text(strconv.Itoa(cmd.Process.Pid)), nil
	case "keep":
		// A file kept with the call's record, in the directory the host
		// made for it; the arguments say whether to keep one.
		if string(req.Arguments) == `{"keep":true}` {
			if err := os.WriteFile(req.RecordDir+"/whole.txt", []byte("all of it"), 0o644); err != nil {
				return sdk.Errorf("keep: %v", err), nil
			}
		}
		return sdk.Text(req.RecordDir), nil
	case "run_env":
		// The run's variables the host passes with the call.
		return sdk.Text(strings.Join(req.Env, "\n")), nil
	case "sleep_ctx":
		<-ctx.Done()
		return sdk.Text("cancelled"), nil
	}
	return sdk.CallResult{}, fmt.Errorf("no tool %q", req.Name)
}

type hooks struct{}

func (hooks) Hook(_ context.Context, req sdk.HookRequest) (sdk.HookResponse, error) {
	if req.Name == "pre_tool_execution" || req.Name == "post_tool_execution" {
		if req.ToolName == "hang" { // a policy that never answers
			time.Sleep(time.Hour)
		}
		if req.ToolName == "rm" {
			return sdk.HookResponse{Action: sdk.Block, Reason: "no rm"}, nil
		}
		if req.ToolName == "deploy" {
			return sdk.HookResponse{Action: sdk.Ask, Reason: "deploys need a human"}, nil
		}
		if req.ToolName == "release" {
			return sdk.HookResponse{Action: "escalate", Reason: "releases too"}, nil
		}
		return sdk.HookResponse{Action: sdk.Continue}, nil
	}
	return sdk.HookResponse{Action: sdk.Modify, Payload: json.RawMessage(`{"hooked":"` + req.Name + `"}`)}, nil
}

func main() {
	if mark := os.Getenv("TESTPLUGIN_MARK"); mark != "" {
		os.WriteFile(mark, []byte("started"), 0o644)
	}
	if err := sdk.Serve(sdk.Plugin{Tools: &plugin{}, Hooks: hooks{}, Version: "9.9.9"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
