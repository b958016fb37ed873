package host

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestCheckArgs(t *testing.T) {
	patch := `{"type":"object","properties":{"patch":{"type":"string"}},"required":["patch"],"additionalProperties":false}`
	read := `{"type":"object","properties":{"file_path":{"type":"string"},"offset":{"type":"integer"},"ratio":{"type":["number","null"]}},"required":["file_path"]}`
	tests := []struct {
		name, schema, args, want string
	}{
		{"ok", patch, `{"patch":"x"}`, ""},
		{"unknown and missing", patch, `{"input":"x"}`, `invalid arguments: unknown parameter "input"; missing required parameter "patch" (parameters: patch)`},
		{"missing only", patch, `{}`, `invalid arguments: missing required parameter "patch" (parameters: patch)`},
		{"empty arguments", patch, ``, `invalid arguments: missing required parameter "patch" (parameters: patch)`},
		{"not an object", patch, `["x"]`, `invalid arguments: the arguments must be a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage`},
		{"wrong type", patch, `{"patch":3}`, `invalid arguments: parameter "patch" must be a string, not an integer (parameters: patch)`},
		{"extra allowed without additionalProperties false", read, `{"file_path":"a","extra":1}`, ""},
		{"integer given as 2.0", read, `{"file_path":"a","offset":2.0}`, ""},
		{"integer given as 2.5", read, `{"file_path":"a","offset":2.5}`, `invalid arguments: parameter "offset" must be an integer, not a number (parameters: file_path, offset, ratio)`},
		{"type list", read, `{"file_path":"a","ratio":null}`, ""},
		{"type list mismatch", read, `{"file_path":"a","ratio":"x"}`, `invalid arguments: parameter "ratio" must be a number or a null, not a string (parameters: file_path, offset, ratio)`},
		{"no schema", ``, `{"anything":1}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkArgs(json.RawMessage(tt.schema), json.RawMessage(tt.args))
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, ErrArguments) {
					t.Errorf("checkArgs() error %v does not wrap ErrArguments", err)
				}
			}
			if got != tt.want {
				t.Errorf("checkArgs() = %q, want %q", got, tt.want)
			}
		})
	}
}
