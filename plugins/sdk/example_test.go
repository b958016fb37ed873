package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/deltakit/delta/plugins/sdk"
)

// upper is a one-tool plugin.
type upper struct{}

func (upper) Tools(context.Context) ([]sdk.Tool, error) {
	return []sdk.Tool{{
		Name:        "upper",
		Description: "Upper-case a text.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}}, nil
}

func (upper) Call(_ context.Context, req sdk.CallRequest) (sdk.CallResult, error) {
	var args struct{ Text string }
	if err := json.Unmarshal(req.Arguments, &args); err != nil {
		return sdk.Errorf("arguments: %v", err), nil
	}
	return sdk.Text(strings.ToUpper(args.Text)), nil
}

// A plugin's main is a call to Serve; delta-run starts the binary.
func ExampleServe() {
	if err := sdk.Serve(sdk.Plugin{Tools: upper{}, Version: "1.0.0"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

// A ToolProvider is plain Go: it can be called directly in tests.
func ExampleToolProvider() {
	res, _ := upper{}.Call(context.Background(), sdk.CallRequest{Name: "upper", Arguments: json.RawMessage(`{"text":"hi"}`)})
	fmt.Println(res.Output, res.IsError)
	// Output: HI false
}

// Errorf reports an error the model sees and may recover from.
func ExampleErrorf() {
	res := sdk.Errorf("file %s not found", "a.txt")
	fmt.Println(res.Output, res.IsError)
	// Output: file a.txt not found true
}
