// Package web is the logic of Delta's first-party web plugin
// (delta-plugin-web): the web_fetch tool, which fetches one http or https
// URL and gives the model its content as text — an HTML page as Markdown,
// plain text, Markdown and JSON as they are — and refuses everything else
// (images, PDFs, binaries) with a message saying so.
//
// It is a plugin tool like any other: agent.yaml's approval rules decide
// whether a call runs, and the run's sandbox confines the plugin process,
// so under workspace-write or read-only without network the fetch's
// connect is refused by the kernel and the model is told the sandbox said
// no. Every fetch is bounded: a timeout, a cap on the bytes read, a number
// of redirects, and what the model is shown is cut by the SDK's Cut (the
// whole page kept in the call's record) with start_index to read on.
package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/deltakit/delta/plugins/sdk"
)

// Version is the web plugin's version, reported to delta plugin list.
const Version = "0.1.0"

// Defaults and bounds of the plugin's config and of a call's arguments.
const (
	DefaultTimeoutMS    = 30000
	MaxTimeoutMS        = 300000
	DefaultMaxBytes     = 5 << 20
	DefaultMaxRedirects = 5
	// DefaultMaxLength is how many characters a call returns unless it
	// asks for another max_length, up to MaxLength (the plugin host's
	// own cap on a plugin tool's output).
	DefaultMaxLength = 20000
	MaxLength        = 50000
	// DefaultUserAgent names the tool, as polite clients do.
	DefaultUserAgent = "Delta-web_fetch/" + Version + " (+https://github.com/deltakit/delta)"
)

// Config is the plugin's agent.yaml config.
type Config struct {
	// TimeoutMS bounds a fetch, from connect to the last byte read
	// (0: DefaultTimeoutMS).
	TimeoutMS int `json:"timeout_ms"`
	// MaxBytes is how much of a response is read; a longer one is cut
	// there, and the model is told so (0: DefaultMaxBytes).
	MaxBytes int64 `json:"max_bytes"`
	// MaxRedirects is how many redirects a fetch follows (nil:
	// DefaultMaxRedirects; 0 follows none).
	MaxRedirects *int `json:"max_redirects"`
	// UserAgent is the User-Agent header ("": DefaultUserAgent).
	UserAgent string `json:"user_agent"`
}

// Tools is the web plugin's sdk.ToolProvider.
type Tools struct {
	Config Config
}

var (
	_ sdk.ToolProvider = (*Tools)(nil)
	_ sdk.Configurer   = (*Tools)(nil)
)

// Configure takes the agent's plugin config; an unknown key (a typo that
// would leave a limit silently at its default) is an error naming the
// known keys.
func (t *Tools) Configure(_ context.Context, raw json.RawMessage) error {
	var c Config
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			if key, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
				return fmt.Errorf("web plugin config: unknown key %s (known keys: %s)", key, strings.Join(configKeys(), ", "))
			}
			return fmt.Errorf("web plugin config: %w", err)
		}
	}
	switch {
	case c.TimeoutMS < 0 || c.TimeoutMS > MaxTimeoutMS:
		return fmt.Errorf("web plugin config: timeout_ms must be between 1 and %d, not %d", MaxTimeoutMS, c.TimeoutMS)
	case c.MaxBytes < 0:
		return fmt.Errorf("web plugin config: max_bytes must be positive, not %d", c.MaxBytes)
	case c.MaxRedirects != nil && *c.MaxRedirects < 0:
		return fmt.Errorf("web plugin config: max_redirects must be 0 or more, not %d", *c.MaxRedirects)
	}
	t.Config = c
	return nil
}

// configKeys lists Config's keys, for the unknown-key error.
func configKeys() []string {
	var keys []string
	typ := reflect.TypeFor[Config]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		keys = append(keys, name)
	}
	return keys
}

// timeout is the configured bound of one fetch.
func (c Config) timeout() time.Duration {
	if c.TimeoutMS > 0 {
		return time.Duration(c.TimeoutMS) * time.Millisecond
	}
	return DefaultTimeoutMS * time.Millisecond
}

// maxBytes is the configured cap on the bytes read of a response.
func (c Config) maxBytes() int64 {
	if c.MaxBytes > 0 {
		return c.MaxBytes
	}
	return DefaultMaxBytes
}

// maxRedirects is how many redirects a fetch follows.
func (c Config) maxRedirects() int {
	if c.MaxRedirects != nil {
		return *c.MaxRedirects
	}
	return DefaultMaxRedirects
}

// userAgent is the User-Agent header a fetch sends.
func (c Config) userAgent() string {
	if c.UserAgent != "" {
		return c.UserAgent
	}
	return DefaultUserAgent
}

// webFetch is the tool as the model sees it.
var webFetch = sdk.Tool{
	Name: "web_fetch",
	Description: "Fetches a web page by its http:// or https:// URL and returns its content as text: an HTML page " +
		"converted to Markdown (links kept), plain text, Markdown and JSON as they are. Other content (images, PDFs, " +
		"archives, binaries) is refused. It only reads (GET): no logins, forms or cookies. Redirects are followed a " +
		"few times; the result names the final URL. A long page is cut at max_length characters: call again with " +
		"start_index where the result says to read on. The sandbox may forbid network access; then the fetch is " +
		"refused and the result says so.",
	Parameters: json.RawMessage(`{"type":"object","properties":{` +
		`"url":{"type":"string","description":"The http:// or https:// URL to fetch."},` +
		`"max_length":{"type":"integer","minimum":1,"maximum":50000,"description":"At most this many characters of the page are returned (default 20000)."},` +
		`"start_index":{"type":"integer","minimum":0,"description":"The character of the page's text to start at, to read on where an earlier call was cut (default 0)."},` +
		`"raw":{"type":"boolean","description":"Return an HTML page's source instead of Markdown (default false)."}` +
		`},"required":["url"],"additionalProperties":false}`),
}

// Tools lists web_fetch.
func (t *Tools) Tools(context.Context) ([]sdk.Tool, error) {
	return []sdk.Tool{webFetch}, nil
}

// args are web_fetch's arguments.
type args struct {
	URL        string `json:"url"`
	MaxLength  *int   `json:"max_length"`
	StartIndex int    `json:"start_index"`
	Raw        bool   `json:"raw"`
}

// decodeArgs reads and checks a call's arguments.
func decodeArgs(raw json.RawMessage) (args, error) {
	var a args
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("invalid arguments: %v (web_fetch takes url, max_length, start_index and raw)", err)
	}
	switch {
	case strings.TrimSpace(a.URL) == "":
		return a, fmt.Errorf("invalid arguments: url is required")
	case a.MaxLength != nil && (*a.MaxLength < 1 || *a.MaxLength > MaxLength):
		return a, fmt.Errorf("invalid arguments: max_length must be between 1 and %d, not %d", MaxLength, *a.MaxLength)
	case a.StartIndex < 0:
		return a, fmt.Errorf("invalid arguments: start_index must be 0 or more, not %d", a.StartIndex)
	}
	return a, nil
}

// maxLength is the call's max_length, or the default.
func (a args) maxLength() int {
	if a.MaxLength != nil {
		return *a.MaxLength
	}
	return DefaultMaxLength
}

// Call runs web_fetch; what goes wrong (a bad URL, a refused type, an
// HTTP error, a timeout) is a tool error the model reads.
func (t *Tools) Call(ctx context.Context, req sdk.CallRequest) (sdk.CallResult, error) {
	if req.Name != webFetch.Name {
		return sdk.Errorf("unknown tool %q: the web plugin serves web_fetch", req.Name), nil
	}
	a, err := decodeArgs(req.Arguments)
	if err != nil {
		return sdk.Errorf("error: %v", err), nil
	}
	page, err := t.fetch(ctx, a.URL)
	if err != nil {
		return sdk.CallResult{Output: "error: " + err.Error(), IsError: true, Data: page.data()}, nil
	}
	text, err := page.text(a.Raw)
	if err != nil {
		return sdk.CallResult{Output: "error: " + err.Error(), IsError: true, Data: page.data()}, nil
	}
	out, err := window(req, text, a.StartIndex, a.maxLength())
	if err != nil {
		return sdk.CallResult{}, err
	}
	return sdk.CallResult{Output: page.header(a.Raw) + out, Data: page.data()}, nil
}
