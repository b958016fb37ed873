#!/bin/sh
# pre_tool_execution policy: block write_file calls whose path leaves the
# workspace. The payload is {"call_id", "tool_args", "tool_name"} as compact
# JSON; a real policy would parse it with jq, this one stays dependency-free
# and fails closed when it cannot read the path.
set -eu
io=$DELTA_HOOK_IO_PATH
payload=$(cat "$io/input/payload.json")

[ "$TOOL_NAME" = write_file ] || exit 0

block() {
	reason=$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')
	printf '{"action": "ABORT", "reason": "%s"}\n' "$reason" > "$io/output/control.json"
	exit 0
}

path=$(printf '%s' "$payload" | sed -n 's/.*"path":"\([^"\\]*\)".*/\1/p')
[ -n "$path" ] || block "write_file: cannot read the path argument; refusing (fail-closed)"

case $path in
/*) abs=$path ;;
*) abs=$DELTA_CWD/$path ;;
esac
abs=$(realpath -m -- "$abs")
ws=$(realpath -m -- "$DELTA_CWD")
case $abs in
"$ws"/*) exit 0 ;;
*) block "write_file: $path is outside the workspace $ws; write inside it instead" ;;
esac
