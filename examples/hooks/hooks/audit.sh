#!/bin/sh
# post_tool_execution logger: one line per call with the iteration, the
# tool, its exit code (from the payload) and the first line of its result.
set -eu
code=$(sed -n 's/.*"exit_code":\(-\{0,1\}[0-9]*\).*/\1/p' "$DELTA_HOOK_IO_PATH/input/payload.json")
first=$(printf '%s\n' "$TOOL_RESULT" | head -n 1)
printf '%s iteration=%s tool=%s exit=%s result=%s\n' \
	"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$ITERATION_COUNT" "$TOOL_NAME" "$code" "$first" >> "$DELTA_CWD/tool-audit.log"
