package coding

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/deltakit/delta/plugins/sdk"
)

// A profile is the tool set of one model family, as its own agent
// presents it: the names, descriptions and parameter names the family was
// trained on. Every tool of every profile runs one of the plugin's
// capabilities (read_file, write_file, edit_file, apply_patch, grep, glob,
// shell, list_dir, read_many_files); a profile only renames it, describes
// it and sets its defaults.
type toolDef struct {
	// Tool is what the model sees.
	sdk.Tool
	// Runs names the capability.
	Runs string
	// Rename maps a parameter name of this profile to the capability's.
	Rename map[string]string
	// Defaults are arguments used when the call leaves them out.
	Defaults map[string]any
}

// Profiles are the tool sets the plugin config's profile: selects.
const (
	ProfileDefault   = "default"   // the capabilities under their own names
	ProfileOpenAI    = "openai"    // codex-rs
	ProfileAnthropic = "anthropic" // Claude Code
	ProfileGemini    = "gemini"    // gemini-cli
)

// ProfileNames lists the profiles, for errors and docs.
func ProfileNames() []string {
	return []string{ProfileDefault, ProfileOpenAI, ProfileAnthropic, ProfileGemini}
}

// profile returns the tool set of name ("" is the default one).
func profile(name string) ([]toolDef, error) {
	switch name {
	case "", ProfileDefault:
		return defaultProfile, nil
	case ProfileOpenAI:
		return openaiProfile, nil
	case ProfileAnthropic:
		return anthropicProfile, nil
	case ProfileGemini:
		return geminiProfile, nil
	}
	return nil, fmt.Errorf("coding plugin config: unknown profile %q (profiles: %s)", name, strings.Join(ProfileNames(), ", "))
}

// find returns the tool the model calls name in profile p.
func find(p []toolDef, name string) (toolDef, bool) {
	i := slices.IndexFunc(p, func(d toolDef) bool { return d.Name == name })
	if i < 0 {
		return toolDef{}, false
	}
	return p[i], true
}

// canonical rewrites a call's arguments into the capability's parameter
// names, adding the profile's defaults.
func (d toolDef) canonical(args json.RawMessage) (json.RawMessage, error) {
	if len(d.Rename) == 0 && len(d.Defaults) == 0 {
		return args, nil
	}
	var m map[string]json.RawMessage
	if len(bytes.TrimSpace(args)) > 0 {
		if err := json.Unmarshal(args, &m); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrArguments, err)
		}
	}
	out := make(map[string]json.RawMessage, len(m)+len(d.Defaults))
	for k, v := range m {
		if to, ok := d.Rename[k]; ok {
			k = to
		}
		out[k] = v
	}
	for k, v := range d.Defaults {
		if _, ok := out[k]; !ok {
			out[k], _ = json.Marshal(v)
		}
	}
	return json.Marshal(out)
}

// param is the profile's name of the capability's parameter name.
func (d toolDef) param(name string) string {
	for from, to := range d.Rename {
		if to == name {
			return from
		}
	}
	return name
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

func tool(name, runs, description, params string) toolDef {
	return toolDef{Tool: sdk.Tool{Name: name, Description: description, Parameters: schema(params)}, Runs: runs}
}

func (d toolDef) rename(m map[string]string) toolDef { d.Rename = m; return d }
func (d toolDef) defaults(m map[string]any) toolDef  { d.Defaults = m; return d }

// The capabilities' own parameter schemas, shared by the default profile
// and by profiles that keep a capability's parameters.
const (
	readFileParams = `{"type":"object","properties":{
		"file_path":{"type":"string","description":"path of the file (absolute, or relative to the workspace)"},
		"offset":{"type":"integer","description":"1-based line number to start reading from"},
		"limit":{"type":"integer","description":"max lines to read (default: 2000)"}},
		"required":["file_path"],"additionalProperties":false}`
	writeFileParams = `{"type":"object","properties":{
		"file_path":{"type":"string","description":"path of the file"},
		"content":{"type":"string","description":"the full file content"}},
		"required":["file_path","content"],"additionalProperties":false}`
	editFileParams = `{"type":"object","properties":{
		"file_path":{"type":"string","description":"path of the file"},
		"old_string":{"type":"string","description":"exact text to find"},
		"new_string":{"type":"string","description":"replacement text"},
		"replace_all":{"type":"boolean","description":"replace all occurrences (default: false)"}},
		"required":["file_path","old_string","new_string"],"additionalProperties":false}`
	grepParams = `{"type":"object","properties":{
		"pattern":{"type":"string","description":"regex pattern"},
		"path":{"type":"string","description":"directory or file to search (default: the workspace)"},
		"glob_filter":{"type":"string","description":"file pattern filter (e.g. \"*.py\")"},
		"case_insensitive":{"type":"boolean","description":"default: false"},
		"output_mode":{"type":"string","enum":["content","files_with_matches","count"],"description":"content: matching lines as path:line:text (default); files_with_matches: the paths of matching files; count: path:count per file"},
		"max_results":{"type":"integer","description":"max matching lines (content) or files (other modes); default: 100"},
		"include_ignored":{"type":"boolean","description":"also search what .gitignore, .ignore and .git/info/exclude exclude (default: false)"}},
		"required":["pattern"],"additionalProperties":false}`
	globParams = `{"type":"object","properties":{
		"pattern":{"type":"string","description":"glob pattern (e.g. \"**/*.ts\")"},
		"path":{"type":"string","description":"base directory (default: the workspace)"},
		"include_ignored":{"type":"boolean","description":"also search what .gitignore, .ignore and .git/info/exclude exclude (default: false)"}},
		"required":["pattern"],"additionalProperties":false}`
	shellParams = `{"type":"object","properties":{
		"command":{"type":"string","description":"the command to run (bash -c)"},
		"timeout_ms":{"type":"integer","description":"timeout in milliseconds (default: {DEFAULT_TIMEOUT_MS}, at most 600000)"},
		"description":{"type":"string","description":"what the command does, in a few words"}},
		"required":["command"],"additionalProperties":false}`
	listDirParams = `{"type":"object","properties":{
		"path":{"type":"string","description":"directory to list (default: the workspace)"},
		"depth":{"type":"integer","description":"how many levels to descend (default: 1)"},
		"limit":{"type":"integer","description":"max entries to list (default: 500)"}},
		"additionalProperties":false}`
	readManyParams = `{"type":"object","properties":{
		"paths":{"type":"array","items":{"type":"string"},"description":"files, directories (read recursively) or glob patterns such as \"src/**/*.go\""}},
		"required":["paths"],"additionalProperties":false}`
)

const applyPatchFormat = "Format: *** Begin Patch / *** Add File: P (+lines) / *** Delete File: P / *** Update File: P [*** Move to: Q] with @@ hunks of ' ', '-', '+' lines / *** End Patch."

// defaultProfile is every capability under its own name.
var defaultProfile = []toolDef{
	tool("read_file", "read_file", "Read a file from the filesystem. Returns line-numbered content (\"N | line\"); an image (PNG, JPEG, GIF, WebP, up to 5 MB) is returned as an image. Relative paths are in the workspace.", readFileParams),
	tool("write_file", "write_file", "Write content to a file. Creates the file and parent directories if needed."+readFirstMark, writeFileParams),
	tool("edit_file", "edit_file", "Replace an exact string occurrence in a file. old_string must match exactly once unless replace_all is true."+readFirstMark, editFileParams),
	tool("apply_patch", "apply_patch", "Apply code changes using the patch format. Supports creating, deleting, and modifying files in a single operation."+readFirstMark+" "+applyPatchFormat,
		`{"type":"object","properties":{"patch":{"type":"string","description":"the patch content in v4a format"}},"required":["patch"],"additionalProperties":false}`),
	tool("grep", "grep", "Search file contents using regex patterns. Returns matching lines as path:line:text, the matching files, or a count per file (output_mode).", grepParams),
	tool("glob", "glob", "Find files matching a glob pattern (\"**\" matches any number of directories). Newest first.", globParams),
	tool("shell", "shell", "Execute a shell command. Returns stdout, stderr, and exit code. The command and every process it starts are stopped when timeout_ms (default {DEFAULT_TIMEOUT_MS}, at most 600000: 10 minutes) runs out.", shellParams),
	tool("list_dir", "list_dir", "List the entries of a directory, to a given depth. Directories end in \"/\".", listDirParams),
	tool("read_many_files", "read_many_files", "Read several files at once (paths, directories or glob patterns); each file's content follows a \"--- path ---\" header.", readManyParams),
}

// openaiProfile follows codex-rs: shell with an argv array, apply_patch
// with its input, read_file, list_dir and grep_files (the files that
// match), plus write_file and glob.
var openaiProfile = []toolDef{
	tool("shell", "shell", "Runs a shell command and returns its output.", `{"type":"object","properties":{
		"command":{"type":"array","items":{"type":"string"},"description":"The command to execute"},
		"workdir":{"type":"string","description":"The working directory to execute the command in"},
		"timeout_ms":{"type":"integer","description":"The timeout for the command in milliseconds (default {DEFAULT_TIMEOUT_MS}, at most 600000)"}},
		"required":["command"],"additionalProperties":false}`),
	tool("apply_patch", "apply_patch", `Use the apply_patch tool to edit files.{READ_FIRST}
Your patch language is a stripped-down, file-oriented diff format designed to be easy to parse and safe to apply. You can think of it as a high-level envelope:

*** Begin Patch
[ one or more file sections ]
*** End Patch

Within that envelope, you get a sequence of file operations.
You MUST include a header to specify the action you are taking.
Each operation starts with one of three headers:

*** Add File: <path> - create a new file. Every following line is a + line (the initial contents).
*** Delete File: <path> - remove an existing file. Nothing follows.
*** Update File: <path> - patch an existing file in place (optionally with a rename).

May be immediately followed by *** Move to: <new path> if you want to rename the file.
Then one or more "hunks", each introduced by @@ (optionally followed by a hunk header such as a class or function name).
Within a hunk each line starts with:
 (space) for context, - for a line to remove, + for a line to add.

For instructions on [context_before] and [context_after]:
- By default, show 3 lines of code immediately above and 3 lines immediately below each change. If a change is within 3 lines of a previous change, do NOT duplicate the first change's [context_after] lines in the second change's [context_before] lines.
- If 3 lines of context is insufficient to uniquely identify the snippet of code within the file, use the @@ operator to indicate the class or function to which the snippet belongs.

Example:
*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print("Hi")
+print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch

It is important to remember:
- You must include a header with your intended action (Add/Delete/Update)
- You must prefix new lines with + even when creating a new file
- File references can only be relative, NEVER ABSOLUTE.`, `{"type":"object","properties":{
		"input":{"type":"string","description":"The entire contents of the apply_patch command"}},
		"required":["input"],"additionalProperties":false}`).rename(map[string]string{"input": "patch"}),
	tool("read_file", "read_file", "Reads a local file with 1-indexed line numbers; an image file (PNG, JPEG, GIF, WebP, up to 5 MB) is shown as an image.", `{"type":"object","properties":{
		"file_path":{"type":"string","description":"Absolute path to the file"},
		"offset":{"type":"integer","description":"The line number to start reading from. Must be 1 or greater."},
		"limit":{"type":"integer","description":"The maximum number of lines to return."}},
		"required":["file_path"],"additionalProperties":false}`),
	tool("list_dir", "list_dir", "Lists entries in a local directory with simple type labels (directories end in \"/\").", `{"type":"object","properties":{
		"dir_path":{"type":"string","description":"Path to the directory to list."},
		"limit":{"type":"integer","description":"The maximum number of entries to return."},
		"depth":{"type":"integer","description":"The maximum directory depth to traverse. Must be 1 or greater."}},
		"required":["dir_path"],"additionalProperties":false}`).rename(map[string]string{"dir_path": "path"}).defaults(map[string]any{"depth": 2}),
	tool("grep_files", "grep", "Finds files whose contents match the pattern and lists them.", `{"type":"object","properties":{
		"pattern":{"type":"string","description":"Regular expression pattern to search for."},
		"include":{"type":"string","description":"Optional glob that limits which files are searched (e.g. \"*.rs\")."},
		"path":{"type":"string","description":"Directory or file path to search. Defaults to the session's working directory."},
		"limit":{"type":"integer","description":"Maximum number of file paths to return (defaults to 100)."},
		"include_ignored":{"type":"boolean","description":"also search what .gitignore, .ignore and .git/info/exclude exclude (default: false)"}},
		"required":["pattern"],"additionalProperties":false}`).rename(map[string]string{"include": "glob_filter", "limit": "max_results"}).defaults(map[string]any{"output_mode": "files_with_matches"}),
	tool("write_file", "write_file", "Write content to a file. Creates the file and parent directories if needed. Use apply_patch to change an existing file."+readFirstMark, writeFileParams),
	tool("glob", "glob", "Find files matching a glob pattern (\"**\" matches any number of directories), newest first.", globParams),
}

// anthropicProfile follows Claude Code: a bash shell, read before edit,
// exact old_string/new_string edits, ripgrep-style grep with output modes.
var anthropicProfile = []toolDef{
	tool("shell", "shell", `Executes a given bash command with an optional timeout, in the workspace.

Usage notes:
- The command argument is required.
- You can specify an optional timeout in milliseconds (up to 600000ms / 10 minutes). If not specified, commands time out after {DEFAULT_TIMEOUT_MS}ms. When a command times out, it and every process it started are stopped.
- Write a clear, concise description of what the command does in 5-10 words.
- If the output exceeds 30000 characters, it is truncated before being returned to you; the message says where the whole output is kept.
- Avoid using this tool to run find, grep, cat, head, tail, sed or echo to read, search or write files: use glob, grep, read_file, edit_file and write_file instead.
- When issuing multiple commands, join them with ';' or '&&'. Do not use newlines to separate commands.
- Keep the current working directory by using absolute paths and avoiding cd.`, `{"type":"object","properties":{
		"command":{"type":"string","description":"The command to execute"},
		"timeout":{"type":"integer","description":"Optional timeout in milliseconds (max 600000)"},
		"description":{"type":"string","description":"Clear, concise description of what this command does in 5-10 words"}},
		"required":["command"],"additionalProperties":false}`).rename(map[string]string{"timeout": "timeout_ms"}),
	tool("read_file", "read_file", `Reads a file from the local filesystem.

Usage:
- The file_path parameter should be an absolute path (a path relative to the workspace also works).
- By default, it reads up to 2000 lines starting from the beginning of the file.
- You can optionally specify a line offset and limit (especially handy for long files), but it's recommended to read the whole file by not providing these parameters.
- Results are returned with line numbers starting at 1, as "N | line".
- This tool allows you to read images (PNG, JPEG, GIF, WebP, up to 5 MB): the image is presented to you visually. Other binary files are refused.
- It is always better to speculatively read multiple files as a batch that are potentially useful.`, readFileParams),
	tool("edit_file", "edit_file", `Performs exact string replacements in files.

Usage:
- You must use read_file at least once in the conversation before editing. This tool will error if you attempt an edit on text the file does not contain.
- When editing text from read_file output, preserve the exact indentation (tabs/spaces) as it appears AFTER the line number prefix. Never include any part of the line number prefix in old_string or new_string.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- The edit will FAIL if old_string is not unique in the file. Either provide a larger string with more surrounding context to make it unique or use replace_all to change every instance of old_string.
- Use replace_all for replacing and renaming strings across the file.`, `{"type":"object","properties":{
		"file_path":{"type":"string","description":"The absolute path to the file to modify"},
		"old_string":{"type":"string","description":"The text to replace"},
		"new_string":{"type":"string","description":"The text to replace it with (must be different from old_string)"},
		"replace_all":{"type":"boolean","description":"Replace all occurrences of old_string (default false)"}},
		"required":["file_path","old_string","new_string"],"additionalProperties":false}`),
	tool("write_file", "write_file", `Writes a file to the local filesystem.

Usage:
- This tool will overwrite the existing file if there is one at the provided path.
- If this is an existing file, you MUST use read_file first to read its contents.
- ALWAYS prefer editing existing files in the codebase. NEVER write new files unless explicitly required.
- NEVER proactively create documentation files (*.md) or README files. Only create documentation files if explicitly requested by the user.`, `{"type":"object","properties":{
		"file_path":{"type":"string","description":"The absolute path to the file to write"},
		"content":{"type":"string","description":"The content to write to the file"}},
		"required":["file_path","content"],"additionalProperties":false}`),
	tool("glob", "glob", `Fast file pattern matching tool that works with any codebase size.
- Supports glob patterns like "**/*.js" or "src/**/*.ts"
- Returns matching file paths sorted by modification time (newest first)
- Use this tool when you need to find files by name patterns`, `{"type":"object","properties":{
		"pattern":{"type":"string","description":"The glob pattern to match files against"},
		"path":{"type":"string","description":"The directory to search in. If not specified, the workspace is used."},
		"include_ignored":{"type":"boolean","description":"also search what .gitignore, .ignore and .git/info/exclude exclude (default: false)"}},
		"required":["pattern"],"additionalProperties":false}`),
	tool("grep", "grep", `A powerful search tool built on ripgrep.

Usage:
- ALWAYS use grep for search tasks. NEVER invoke grep or rg as a shell command.
- Supports full regex syntax (e.g., "log.*Error", "function\\s+\\w+")
- Filter files with the glob parameter (e.g., "*.js", "**/*.tsx")
- Output modes: "content" shows matching lines, "files_with_matches" shows only file paths (default), "count" shows match counts
- Pattern syntax: uses ripgrep (not grep) - literal braces need escaping`, `{"type":"object","properties":{
		"pattern":{"type":"string","description":"The regular expression pattern to search for in file contents"},
		"path":{"type":"string","description":"File or directory to search in. Defaults to the workspace."},
		"glob":{"type":"string","description":"Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\")"},
		"output_mode":{"type":"string","enum":["content","files_with_matches","count"],"description":"Output mode: \"content\" shows matching lines, \"files_with_matches\" shows file paths (default), \"count\" shows match counts"},
		"-i":{"type":"boolean","description":"Case insensitive search"},
		"head_limit":{"type":"integer","description":"Limit output to the first N lines/entries (default 100)"},
		"include_ignored":{"type":"boolean","description":"also search what .gitignore, .ignore and .git/info/exclude exclude (default: false)"}},
		"required":["pattern"],"additionalProperties":false}`).rename(map[string]string{"glob": "glob_filter", "-i": "case_insensitive", "head_limit": "max_results"}).defaults(map[string]any{"output_mode": "files_with_matches"}),
}

// geminiProfile follows gemini-cli's tool names and parameters.
var geminiProfile = []toolDef{
	tool("read_file", "read_file", "Reads and returns the content of a specified file from the local filesystem, with line numbers. If the file is large, the content is truncated; use 'offset' and 'limit' to read it in parts. Images (PNG, JPEG, GIF, WebP, up to 5 MB) are returned as images; other binary files are refused.", `{"type":"object","properties":{
		"absolute_path":{"type":"string","description":"The absolute path to the file to read (a path relative to the project directory also works)."},
		"offset":{"type":"integer","description":"Optional: the 1-based line number to start reading from. Requires 'limit' to be set. Use for paginating through large files."},
		"limit":{"type":"integer","description":"Optional: maximum number of lines to read. Use with 'offset' to paginate through large files."}},
		"required":["absolute_path"],"additionalProperties":false}`).rename(map[string]string{"absolute_path": "file_path"}),
	tool("read_many_files", "read_many_files", "Reads content from multiple files specified by paths or glob patterns within the project directory. Concatenates their content into a single string, each file after a separator '--- {filePath} ---'. Directories are read recursively; binary files are skipped. Useful when you need to understand or analyze a collection of files.", `{"type":"object","properties":{
		"paths":{"type":"array","items":{"type":"string"},"description":"An array of glob patterns or paths relative to the project directory. Examples: ['src/**/*.ts'], ['README.md', 'docs/']"}},
		"required":["paths"],"additionalProperties":false}`),
	tool("write_file", "write_file", "Writes content to a specified file in the local filesystem. Creates parent directories if needed; overwrites an existing file."+readFirstMark, `{"type":"object","properties":{
		"file_path":{"type":"string","description":"The absolute path to the file to write to (a relative path is in the project directory)."},
		"content":{"type":"string","description":"The content to write to the file."}},
		"required":["file_path","content"],"additionalProperties":false}`),
	tool("replace", "edit_file", `Replaces text within a file. By default, replaces a single occurrence, but can replace multiple occurrences when expected_replacements is specified. This tool requires providing significant context around the change to ensure precise targeting. Always use the read_file tool to examine the file's current content before attempting a text replacement.

Expectation for required parameters:
1. old_string MUST be the exact literal text to replace (including all whitespace, indentation, newlines, and surrounding code etc.).
2. new_string MUST be the exact literal text to replace old_string with.
3. NEVER escape old_string or new_string.
Important: if any of the above are not satisfied, the tool will fail. For single replacements, include at least 3 lines of context BEFORE and AFTER the target text, matching whitespace and indentation precisely.`, `{"type":"object","properties":{
		"file_path":{"type":"string","description":"The absolute path to the file to modify."},
		"old_string":{"type":"string","description":"The exact literal text to replace, preferably unescaped."},
		"new_string":{"type":"string","description":"The exact literal text to replace old_string with."},
		"expected_replacements":{"type":"integer","description":"Number of replacements expected. Defaults to 1 if not specified. Use when you want to replace multiple occurrences."}},
		"required":["file_path","old_string","new_string"],"additionalProperties":false}`),
	tool("list_directory", "list_dir", "Lists the names of files and subdirectories directly within a specified directory path. Directories end in \"/\".", `{"type":"object","properties":{
		"path":{"type":"string","description":"The path to the directory to list (absolute, or relative to the project directory)."}},
		"required":["path"],"additionalProperties":false}`),
	tool("glob", "glob", "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, `**/*.md`), returning paths sorted by modification time (newest first). Ideal for quickly locating files based on their name or path structure.", `{"type":"object","properties":{
		"pattern":{"type":"string","description":"The glob pattern to match against (e.g., '**/*.py', 'docs/*.md')."},
		"path":{"type":"string","description":"Optional: the directory to search within. If omitted, searches the project directory."},
		"include_ignored":{"type":"boolean","description":"also search what .gitignore, .ignore and .git/info/exclude exclude (default: false)"}},
		"required":["pattern"],"additionalProperties":false}`),
	tool("search_file_content", "grep", "Searches for a regular expression pattern within the content of files in a specified directory (or the project directory). Can filter files by a glob pattern. Returns the lines containing matches, along with their file paths and line numbers.", `{"type":"object","properties":{
		"pattern":{"type":"string","description":"The regular expression (regex) pattern to search for within file contents (e.g., 'function\\s+myFunction')."},
		"path":{"type":"string","description":"Optional: the directory to search within. If omitted, searches the project directory."},
		"include":{"type":"string","description":"Optional: a glob pattern to filter which files are searched (e.g., '*.js', '*.{ts,tsx}'). If omitted, searches all files."},
		"include_ignored":{"type":"boolean","description":"also search what .gitignore, .ignore and .git/info/exclude exclude (default: false)"}},
		"required":["pattern"],"additionalProperties":false}`).rename(map[string]string{"include": "glob_filter"}),
	tool("run_shell_command", "shell", `This tool executes a given shell command as bash -c <command>. Command can start background processes using &. Command is executed as a subprocess in its own process group; the whole group is stopped when the timeout runs out.

The following information is returned: the command's stdout, its stderr under a [stderr] marker, and its exit code when it is not 0 (or a timeout message).`, `{"type":"object","properties":{
		"command":{"type":"string","description":"Exact bash command to execute as bash -c <command>"},
		"description":{"type":"string","description":"Brief description of the command for the user. Be specific and concise."},
		"directory":{"type":"string","description":"(OPTIONAL) Directory to run the command in, relative to the project directory. Must exist."},
		"timeout_ms":{"type":"integer","description":"(OPTIONAL) Timeout in milliseconds (default {DEFAULT_TIMEOUT_MS}, at most 600000)."}},
		"required":["command"],"additionalProperties":false}`).rename(map[string]string{"directory": "workdir"}),
}
