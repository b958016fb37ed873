package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/deltakit/delta/lib/redact"
)

// redactJSONRecord redacts the strings of the JSON record at path.
func redactJSONRecord(r *redact.Redactor, path string) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > maxRedactedLog {
		return
	}
	if red, changed := redactJSON(r, data); changed {
		_ = os.WriteFile(path, red, 0o644)
	}
}

// redactJSON returns the JSON record data with its strings redacted and
// true, or data itself and false when it holds no secret. It works on the decoded strings,
// not the bytes: a secret holding a quote or an ampersand is escaped in
// the JSON and would not match there.
func redactJSON(r *redact.Redactor, data []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return data, false
	}
	v, changed := redactValue(r, v)
	if !changed {
		return data, false
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return data, false
	}
	return append(out, '\n'), true
}

// redactValue redacts every string in a decoded JSON value.
func redactValue(r *redact.Redactor, v any) (any, bool) {
	switch x := v.(type) {
	case string:
		red := r.String(x)
		return red, red != x
	case []any:
		changed := false
		for i := range x {
			var c bool
			x[i], c = redactValue(r, x[i])
			changed = changed || c
		}
		return x, changed
	case map[string]any:
		changed := false
		for k := range x {
			var c bool
			x[k], c = redactValue(r, x[k])
			changed = changed || c
		}
		return x, changed
	}
	return v, false
}

// maxRedactedLog is the largest output file whose secrets are redacted
// in place; larger ones are left as the tool wrote them.
const maxRedactedLog = 64 << 20

// RedactOutputFiles replaces r's secret values in every file kept in the
// directory of the record recordPath (a command's logs, an MCP tool's
// result, what a plugin kept there), JSON files as JSON. The record
// itself is redacted as it is written (Records); these files are written
// while the tool runs.
func RedactOutputFiles(r *redact.Redactor, runDir, recordPath string) {
	if r == nil || recordPath == "" {
		return
	}
	dir := filepath.Join(runDir, strings.TrimSuffix(recordPath, ".json"))
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if filepath.Ext(p) == ".json" {
			redactJSONRecord(r, p)
			continue
		}
		redactFile(r, p)
	}
}
