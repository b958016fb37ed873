// Command delta-plugin-coding is Delta's first-party coding-tools plugin:
// read_file, write_file, edit_file, apply_patch, grep, glob, shell,
// list_dir and read_many_files for agents that list it under plugins: in
// agent.yaml, presented as codex-rs, Claude Code or gemini-cli present them
// when its config sets profile: openai, anthropic or gemini. delta-run
// starts it; it is not run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/deltakit/delta/plugins/coding"
	"github.com/deltakit/delta/plugins/sdk"
)

func main() {
	err := sdk.Serve(sdk.Plugin{Tools: &coding.Tools{}, Version: coding.Version})
	if err != nil {
		fmt.Fprintln(os.Stderr, "delta-plugin-coding: error:", err)
		os.Exit(1)
	}
}
