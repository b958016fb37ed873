package coding

import (
	"bytes"
	"encoding/json"

	"github.com/deltakit/delta/plugins/sdk"
)

// toolList is what the model sees (names and parameters of seeds/001 §3.3
// and §3.4).
var toolList = []sdk.Tool{
	{
		Name:        "read_file",
		Description: "Read a file from the filesystem. Returns line-numbered content (\"N | line\"). Relative paths are in the workspace.",
		Parameters: schema(`{"type":"object","properties":{
			"file_path":{"type":"string","description":"path of the file (absolute, or relative to the workspace)"},
			"offset":{"type":"integer","description":"1-based line number to start reading from"},
			"limit":{"type":"integer","description":"max lines to read (default: 2000)"}},
			"required":["file_path"],"additionalProperties":false}`),
	},
	{
		Name:        "write_file",
		Description: "Write content to a file. Creates the file and parent directories if needed.",
		Parameters: schema(`{"type":"object","properties":{
			"file_path":{"type":"string","description":"path of the file"},
			"content":{"type":"string","description":"the full file content"}},
			"required":["file_path","content"],"additionalProperties":false}`),
	},
	{
		Name:        "edit_file",
		Description: "Replace an exact string occurrence in a file. old_string must match exactly once unless replace_all is true.",
		Parameters: schema(`{"type":"object","properties":{
			"file_path":{"type":"string","description":"path of the file"},
			"old_string":{"type":"string","description":"exact text to find"},
			"new_string":{"type":"string","description":"replacement text"},
			"replace_all":{"type":"boolean","description":"replace all occurrences (default: false)"}},
			"required":["file_path","old_string","new_string"],"additionalProperties":false}`),
	},
	{
		Name: "apply_patch",
		Description: "Apply code changes using the patch format. Supports creating, deleting, and modifying files in a single operation. " +
			"Format: *** Begin Patch / *** Add File: P (+lines) / *** Delete File: P / *** Update File: P [*** Move to: Q] with @@ hunks of ' ', '-', '+' lines / *** End Patch.",
		Parameters: schema(`{"type":"object","properties":{
			"patch":{"type":"string","description":"the patch content in v4a format"}},
			"required":["patch"],"additionalProperties":false}`),
	},
	{
		Name:        "grep",
		Description: "Search file contents using regex patterns. Returns matching lines as path:line:text.",
		Parameters: schema(`{"type":"object","properties":{
			"pattern":{"type":"string","description":"regex pattern"},
			"path":{"type":"string","description":"directory or file to search (default: the workspace)"},
			"glob_filter":{"type":"string","description":"file pattern filter (e.g. \"*.py\")"},
			"case_insensitive":{"type":"boolean","description":"default: false"},
			"max_results":{"type":"integer","description":"default: 100"}},
			"required":["pattern"],"additionalProperties":false}`),
	},
	{
		Name:        "glob",
		Description: "Find files matching a glob pattern (\"**\" matches any number of directories). Newest first.",
		Parameters: schema(`{"type":"object","properties":{
			"pattern":{"type":"string","description":"glob pattern (e.g. \"**/*.ts\")"},
			"path":{"type":"string","description":"base directory (default: the workspace)"}},
			"required":["pattern"],"additionalProperties":false}`),
	},
}

// schema compacts a literal JSON Schema (TestSchemasAreValid checks each
// literal parses).
func schema(s string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return json.RawMessage(s)
	}
	return b.Bytes()
}
