// Package hooks runs an agent's lifecycle hooks (seeds/000 §2.7.3): the
// eight hook points of hooks.yaml, each a command speaking the file
// protocol under io/hooks or a hook plugin.
//
// Hooks run synchronously, in every mode, headless included. A hook that
// fails is recorded and the run goes on, except pre_tool_execution, which
// fails closed: a policy hook that cannot give its verdict blocks the call
// (a policy that silently does not run is worse than a blocked call).
package hooks
