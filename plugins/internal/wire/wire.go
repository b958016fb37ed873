// Package wire binds Delta's gRPC plugin services to hashicorp/go-plugin:
// the handshake both sides must agree on and the go-plugin Plugin values
// that register a server (plugin side) or hand out a client (host side).
// It is shared by plugins/sdk and plugins/host so the two cannot drift.
package wire

import (
	"context"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/deltakit/delta/plugins/proto"
)

// Handshake is the go-plugin handshake of protocol version
// proto.ProtocolVersion.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  proto.ProtocolVersion,
	MagicCookieKey:   proto.MagicCookieKey,
	MagicCookieValue: proto.MagicCookieValue,
}

// ToolsPlugin serves (Impl set) or dials (host side) the ToolProvider
// service.
type ToolsPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl proto.ToolProviderServer
}

// GRPCServer registers the tool provider on the plugin's gRPC server.
func (p *ToolsPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	proto.RegisterToolProviderServer(s, p.Impl)
	return nil
}

// GRPCClient returns a proto.ToolProviderClient for the host.
func (p *ToolsPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return proto.NewToolProviderClient(c), nil
}

// HooksPlugin serves (Impl set) or dials (host side) the HookProvider
// service.
type HooksPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl proto.HookProviderServer
}

// GRPCServer registers the hook provider on the plugin's gRPC server.
func (p *HooksPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	proto.RegisterHookProviderServer(s, p.Impl)
	return nil
}

// GRPCClient returns a proto.HookProviderClient for the host.
func (p *HooksPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return proto.NewHookProviderClient(c), nil
}

// HostPlugins is the plugin set a host dials: both services, either of
// which a plugin may leave unserved.
func HostPlugins() plugin.PluginSet {
	return plugin.PluginSet{
		proto.ToolsPlugin: &ToolsPlugin{},
		proto.HooksPlugin: &HooksPlugin{},
	}
}

// ExecWrapperVar is the environment variable in which the host gives a
// plugin the agent's exec_wrapper (a JSON array of strings): a plugin that
// runs commands (the coding plugin's shell) puts it before their argv, as
// command tools do.
const ExecWrapperVar = "DELTA_EXEC_WRAPPER"
