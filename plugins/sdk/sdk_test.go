package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/deltakit/delta/plugins/proto"
)

type greeter struct{ greeting string }

func (g *greeter) Configure(_ context.Context, c json.RawMessage) error {
	var cfg struct{ Greeting string }
	if err := json.Unmarshal(c, &cfg); err != nil {
		return err
	}
	if cfg.Greeting == "bad" {
		return errors.New("bad greeting")
	}
	g.greeting = cfg.Greeting
	return nil
}

func (g *greeter) Tools(context.Context) ([]Tool, error) {
	return []Tool{{Name: "greet", Description: "Greets.", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "wait"}}, nil
}

func (g *greeter) Call(ctx context.Context, req CallRequest) (CallResult, error) {
	switch req.Name {
	case "greet":
		var a struct{ Name string }
		if err := json.Unmarshal(req.Arguments, &a); err != nil {
			return Errorf("bad arguments: %v", err), nil
		}
		return CallResult{Output: g.greeting + ", " + a.Name + " (" + req.WorkDir + ")", Data: json.RawMessage(`{"n":1}`)}, nil
	case "wait":
		if req.Deadline.IsZero() {
			return Errorf("no deadline"), nil
		}
		<-ctx.Done()
		return Text("done"), nil
	}
	return CallResult{}, errors.New("unknown tool")
}

func (g *greeter) Hook(_ context.Context, req HookRequest) (HookResponse, error) {
	if req.Name == "pre_tool_execution" && req.ToolName == "rm" {
		return HookResponse{Action: Block, Reason: "rm refused at iteration " + string(rune('0'+req.Iteration))}, nil
	}
	return HookResponse{}, nil
}

// conn serves p in-process through go-plugin's gRPC test helpers.
func conn(t *testing.T, p Plugin) (proto.ToolProviderClient, proto.HookProviderClient) {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, pluginSet(p))
	t.Cleanup(func() { client.Close() })
	rawT, err := client.Dispense(proto.ToolsPlugin)
	if err != nil {
		t.Fatal(err)
	}
	var hooks proto.HookProviderClient
	if p.Hooks != nil {
		rawH, err := client.Dispense(proto.HooksPlugin)
		if err != nil {
			t.Fatal(err)
		}
		hooks = rawH.(proto.HookProviderClient)
	}
	return rawT.(proto.ToolProviderClient), hooks
}

func TestToolServer(t *testing.T) {
	g := &greeter{}
	tools, _ := conn(t, Plugin{Tools: g, Hooks: g, Version: "1.2.3"})
	ctx := context.Background()
	if _, err := tools.Configure(ctx, &proto.ConfigureRequest{ConfigJson: []byte(`{"Greeting":"Hello"}`)}); err != nil {
		t.Fatalf("Configure() error = %v", err)
	}
	if _, err := tools.Configure(ctx, &proto.ConfigureRequest{ConfigJson: []byte(`{"Greeting":"bad"}`)}); err == nil {
		t.Errorf("Configure(bad) succeeded")
	}
	list, err := tools.ListTools(ctx, &proto.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	type spec struct{ Name, Desc, Params string }
	var got []spec
	for _, s := range list.GetTools() {
		got = append(got, spec{s.GetName(), s.GetDescription(), string(s.GetParametersJson())})
	}
	want := []spec{{"greet", "Greets.", `{"type":"object"}`}, {"wait", "", `{"type":"object","properties":{}}`}}
	if diff := cmp.Diff(want, got); diff != "" || list.GetVersion() != "1.2.3" {
		t.Errorf("ListTools() mismatch (-want +got):\n%s version %q", diff, list.GetVersion())
	}
	res, err := tools.Execute(ctx, &proto.ExecuteRequest{Name: "greet", ArgumentsJson: []byte(`{"Name":"Ada"}`), Workdir: "/w"})
	if err != nil || res.GetOutput() != "Hello, Ada (/w)" || res.GetIsError() || string(res.GetDataJson()) != `{"n":1}` {
		t.Errorf("Execute(greet) = %v, %v", res, err)
	}
	res, err = tools.Execute(ctx, &proto.ExecuteRequest{Name: "greet", ArgumentsJson: []byte(`[`)})
	if err != nil || !res.GetIsError() {
		t.Errorf("Execute(greet, bad json) = %v, %v; want a tool error", res, err)
	}
	_, err = tools.Execute(ctx, &proto.ExecuteRequest{Name: "nope"})
	if status.Convert(err).Message() != "unknown tool" {
		t.Errorf("Execute(nope) error = %v, want the plugin's error", err)
	}
}

func TestToolServerDeadline(t *testing.T) {
	g := &greeter{}
	tools, _ := conn(t, Plugin{Tools: g})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := tools.Execute(ctx, &proto.ExecuteRequest{Name: "wait"})
	if status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("Execute(wait) error = %v, want DeadlineExceeded", err)
	}
}

func TestHookServer(t *testing.T) {
	g := &greeter{}
	_, hooks := conn(t, Plugin{Tools: g, Hooks: g})
	ctx := context.Background()
	r, err := hooks.Hook(ctx, &proto.HookRequest{Name: "pre_tool_execution", Context: &proto.HookContext{ToolName: "rm", Iteration: 3}})
	if err != nil || r.GetAction() != Block || r.GetReason() != "rm refused at iteration 3" {
		t.Errorf("Hook(rm) = %v, %v", r, err)
	}
	r, err = hooks.Hook(ctx, &proto.HookRequest{Name: "on_run_end"})
	if err != nil || r.GetAction() != Continue {
		t.Errorf("Hook(on_run_end) = %v, %v; want continue for an empty action", r, err)
	}
}

func TestServeRefuses(t *testing.T) {
	if err := Serve(Plugin{}); !errors.Is(err, ErrNothingToServe) {
		t.Errorf("Serve(empty) = %v, want ErrNothingToServe", err)
	}
	t.Setenv(proto.MagicCookieKey, "")
	if err := Serve(Plugin{Tools: &greeter{}}); !errors.Is(err, ErrNotLaunchedByHost) {
		t.Errorf("Serve() by hand = %v, want ErrNotLaunchedByHost", err)
	}
}
