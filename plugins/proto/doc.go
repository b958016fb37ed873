// Package proto is the wire protocol between Delta and its plugins: the
// gRPC services of delta.proto (generated code committed next to it, so
// building never needs protoc; `make proto` regenerates it) and the
// go-plugin handshake values both sides must agree on.
//
// Plugin authors do not use this package: plugins/sdk hides it.
package proto

// ProtocolVersion is the go-plugin handshake protocol version. Bump it on
// every breaking change to delta.proto: a host and a plugin with different
// versions refuse each other at start instead of failing mid-run.
const ProtocolVersion = 1

// The magic cookie go-plugin checks so that a plugin binary run by hand
// explains itself instead of waiting for a handshake. It is not a secret.
const (
	MagicCookieKey   = "DELTA_PLUGIN"
	MagicCookieValue = "b7c4a0e2-delta-plugin-v1"
)

// Names of the go-plugin plugins a Delta plugin process may serve.
const (
	ToolsPlugin = "tools"
	HooksPlugin = "hooks"
)
