// Package mcptest is a small MCP server for Delta's tests: a few tools
// whose behaviour a test can predict (echo, add, fail, sleep, big, env,
// note.read; WriterServer adds write, MediaServer picture and chime).
// testdata/testserver serves it over stdio; in-process tests connect to it
// with the SDK's in-memory transport.
package mcptest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// PidFileEnv names a file the sleep tool writes the server's pid to
// before it sleeps, so a test knows the server is up and which process it
// is.
const PidFileEnv = "MCPTEST_PIDFILE"

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo back"`
}

type addIn struct {
	A int `json:"a" jsonschema:"the first number"`
	B int `json:"b" jsonschema:"the second number"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type failIn struct {
	Message string `json:"message" jsonschema:"the error message"`
}

type sleepIn struct {
	MS int `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
}

type bigIn struct {
	Lines int `json:"lines" jsonschema:"how many lines to print"`
}

type writeIn struct {
	Path string `json:"path" jsonschema:"the file to write"`
	Text string `json:"text" jsonschema:"what to write"`
}

type envIn struct {
	Name string `json:"name" jsonschema:"the variable's name"`
}

// Server returns the test server.
func Server() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcptest", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back."},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Fail with the message."},
		func(_ context.Context, _ *sdk.CallToolRequest, in failIn) (*sdk.CallToolResult, any, error) {
			r := text(in.Message)
			r.IsError = true
			return r, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "sleep", Description: "Sleep, then say done."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in sleepIn) (*sdk.CallToolResult, any, error) {
			if f := os.Getenv(PidFileEnv); f != "" {
				if err := os.WriteFile(f+".tmp", fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644); err != nil {
					return nil, nil, err
				}
				if err := os.Rename(f+".tmp", f); err != nil {
					return nil, nil, err
				}
			}
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return text("done"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Print many numbered lines."},
		func(_ context.Context, _ *sdk.CallToolRequest, in bigIn) (*sdk.CallToolResult, any, error) {
			var b strings.Builder
			for i := 1; i <= in.Lines; i++ {
				fmt.Fprintf(&b, "line %d\n", i)
			}
			return text(b.String()), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "note.read", Description: "A tool whose name has a dot."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return text("the note"), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "Print an environment variable, or <unset>."},
		func(_ context.Context, _ *sdk.CallToolRequest, in envIn) (*sdk.CallToolResult, any, error) {
			v, ok := os.LookupEnv(in.Name)
			if !ok {
				v = "<unset>"
			}
			return text(v), nil, nil
		})
	return s
}

// PNG is the image MediaServer's picture tool returns (a 1×1 PNG), and
// WAV the sound its chime tool returns (a WAV header).
var (
	PNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	WAV = []byte("RIFF$\x00\x00\x00WAVEfmt ")
)

// MediaServer is Server with two more tools: picture, which returns a
// caption and an image, and chime, which returns a sound alone.
func MediaServer() *sdk.Server {
	s := Server()
	sdk.AddTool(s, &sdk.Tool{Name: "picture", Description: "Return a picture."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a red dot"}, &sdk.ImageContent{MIMEType: "image/png", Data: PNG}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "chime", Description: "Return a sound."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: WAV}}}, nil, nil
		})
	return s
}

// WriterServer is Server with one more tool, write, which writes a file
// (or fails saying why): the sandbox's tests try it outside the
// workspace.
func WriterServer() *sdk.Server {
	s := Server()
	sdk.AddTool(s, &sdk.Tool{Name: "write", Description: "Write the text to a file, or fail saying why."},
		func(_ context.Context, _ *sdk.CallToolRequest, in writeIn) (*sdk.CallToolResult, any, error) {
			if err := os.WriteFile(in.Path, []byte(in.Text), 0o644); err != nil {
				r := text(err.Error())
				r.IsError = true
				return r, nil, nil
			}
			return text("written"), nil, nil
		})
	return s
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}
