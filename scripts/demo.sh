#!/bin/sh
# demo.sh — run examples/hello-world offline (scripted model, no API key)
# in a new workspace and show what the run left on disk. The workspace is
# kept, so the journal it prints can be read, continued and replayed.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-./bin}
if [ ! -x "$BIN/delta-run" ]; then
	echo "demo: $BIN/delta-run not found; run 'make build' first" >&2
	exit 1
fi
WS=$(mktemp -d "${TMPDIR:-/tmp}/delta-demo.XXXXXX")

echo "== delta run --agent examples/hello-world -w $WS -m 'Say hello to the world'" >&2
"$BIN/delta-run" run --agent examples/hello-world -w "$WS" -m "Say hello to the world" --format json >"$WS/result.json"

echo >&2
echo "== result (RunResult v2.0 .result):" >&2
if command -v jq >/dev/null 2>&1; then jq .result "$WS/result.json"; else cat "$WS/result.json"; fi

echo >&2
echo "== the file the agent wrote:" >&2
cat "$WS/greetings/hello.txt"

RUN=$("$BIN/delta-run" list-runs -w "$WS" --first)
echo >&2
echo "== the run's journal ($WS/.delta/$RUN/journal.jsonl), one event per line:" >&2
if command -v jq >/dev/null 2>&1; then
	jq -c '{seq, type, iteration, tool_name, exit_code}' "$WS/.delta/$RUN/journal.jsonl"
else
	cut -c1-120 "$WS/.delta/$RUN/journal.jsonl"
fi
echo >&2
echo "demo: ok; the workspace is kept in $WS:" >&2
echo "  $BIN/delta-run log -w $WS --last   # the run as the live stream showed it" >&2
echo "  rm -rf $WS   # when you are done" >&2
