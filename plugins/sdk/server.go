package sdk

import (
	"context"
	"encoding/json"
	"time"

	"github.com/deltakit/delta/plugins/proto"
)

// toolServer adapts a ToolProvider to the generated gRPC service.
type toolServer struct {
	proto.UnimplementedToolProviderServer
	p       ToolProvider
	version string
}

// Configure passes the agent config to a Configurer (a no-op otherwise).
func (s *toolServer) Configure(ctx context.Context, req *proto.ConfigureRequest) (*proto.ConfigureResponse, error) {
	if c, ok := s.p.(Configurer); ok {
		cfg := json.RawMessage(req.GetConfigJson())
		if len(cfg) == 0 {
			cfg = json.RawMessage("{}")
		}
		if err := c.Configure(ctx, cfg); err != nil {
			return nil, err
		}
	}
	return &proto.ConfigureResponse{}, nil
}

// ListTools lists the provider's tools, defaulting empty schemas.
func (s *toolServer) ListTools(ctx context.Context, _ *proto.ListToolsRequest) (*proto.ListToolsResponse, error) {
	tools, err := s.p.Tools(ctx)
	if err != nil {
		return nil, err
	}
	resp := &proto.ListToolsResponse{Version: s.version}
	for _, t := range tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		resp.Tools = append(resp.Tools, &proto.ToolSpec{
			Name: t.Name, Description: t.Description, ParametersJson: params,
		})
	}
	return resp, nil
}

// Execute runs one call with the host's deadline in ctx.
func (s *toolServer) Execute(ctx context.Context, req *proto.ExecuteRequest) (*proto.ExecuteResponse, error) {
	cr := CallRequest{
		Name:      req.GetName(),
		Arguments: json.RawMessage(req.GetArgumentsJson()),
		WorkDir:   req.GetWorkdir(),
		CallID:    req.GetCallId(),
		RunID:     req.GetRunId(),
		RecordDir: req.GetRecordDir(),
		Env:       req.GetEnv(),
	}
	if ms := req.GetDeadlineUnixMs(); ms > 0 {
		cr.Deadline = time.UnixMilli(ms)
	} else if d, ok := ctx.Deadline(); ok {
		cr.Deadline = d
	}
	if len(cr.Arguments) == 0 {
		cr.Arguments = json.RawMessage("{}")
	}
	res, err := s.p.Call(ctx, cr)
	if err != nil {
		return nil, err
	}
	resp := &proto.ExecuteResponse{Output: res.Output, IsError: res.IsError, DataJson: res.Data}
	for _, p := range res.Parts {
		resp.Parts = append(resp.Parts, &proto.Part{Type: p.Type, MediaType: p.MediaType, Data: p.Data})
	}
	return resp, nil
}

// hookServer adapts a HookProvider to the generated gRPC service.
type hookServer struct {
	proto.UnimplementedHookProviderServer
	p HookProvider
}

// Hook answers one hook; an empty action means continue.
func (s *hookServer) Hook(ctx context.Context, req *proto.HookRequest) (*proto.HookResponse, error) {
	hc := req.GetContext()
	hr := HookRequest{
		Name:         req.GetName(),
		Payload:      json.RawMessage(req.GetPayloadJson()),
		RunID:        hc.GetRunId(),
		RunDir:       hc.GetRunDir(),
		WorkDir:      hc.GetWorkdir(),
		AgentHome:    hc.GetAgentHome(),
		Iteration:    int(hc.GetIteration()),
		ToolName:     hc.GetToolName(),
		ToolResult:   hc.GetToolResult(),
		ErrorMessage: hc.GetErrorMessage(),
	}
	res, err := s.p.Hook(ctx, hr)
	if err != nil {
		return nil, err
	}
	action := res.Action
	if action == "" {
		action = Continue
	}
	return &proto.HookResponse{Action: action, PayloadJson: res.Payload, Reason: res.Reason}, nil
}
