package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// WithTransport makes Start reach server name through t.
func WithTransport(o Options, name string, t sdk.Transport) Options {
	if o.transports == nil {
		o.transports = map[string]sdk.Transport{}
	}
	o.transports[name] = t
	return o
}
