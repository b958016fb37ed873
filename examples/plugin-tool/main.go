// Command plugin-tool is a third-party Delta tool plugin in a few lines:
// one tool, word_count, served with plugins/sdk.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/deltakit/delta/plugins/sdk"
)

type wordCount struct{}

// Tools lists the one tool, with the JSON Schema of its arguments.
func (wordCount) Tools(context.Context) ([]sdk.Tool, error) {
	return []sdk.Tool{{Name: "word_count", Description: "Count the words and lines of a text.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}}, nil
}

// Call counts; bad arguments are an error the model sees.
func (wordCount) Call(_ context.Context, req sdk.CallRequest) (sdk.CallResult, error) {
	var args struct{ Text string }
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return sdk.Errorf("arguments: %v", err), nil
	}
	return sdk.Text(fmt.Sprintf("%d words, %d lines", len(strings.Fields(args.Text)), strings.Count(args.Text, "\n"))), nil
}

func main() {
	if err := sdk.Serve(sdk.Plugin{Tools: wordCount{}, Version: "1.0.0"}); err != nil {
		fmt.Fprintln(os.Stderr, "plugin-tool:", err)
		os.Exit(1)
	}
}
