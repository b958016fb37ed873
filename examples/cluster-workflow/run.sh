#!/bin/sh
# run.sh — the review workflow on a cluster on this machine, offline: one
# node, two workers serving the workflow's queue, a controller and a
# standby. While the coder's tool runs, it kills (SIGKILL) the controller
# and the worker running the tool: the standby takes over, the other
# worker continues the coder's run, and the review ends as it would on one
# host. Everything is in a temporary directory, removed at the end. Run it
# from the repository root after make build:
#   sh examples/cluster-workflow/run.sh
set -eu
cd "$(dirname "$0")/../.."
BIN=${BIN:-./bin}
for b in delta delta-cluster delta-run delta-workflow; do
	[ -x "$BIN/$b" ] || { echo "run.sh: $BIN/$b not found; run 'make build' first" >&2; exit 1; }
done
PATH=$(cd "$BIN" && pwd):$PATH
export PATH
TMP=$(mktemp -d "${TMPDIR:-/tmp}/delta-cluster-workflow.XXXXXX")
PIDS=""
cleanup() {
	[ -f "$TMP/ws/.workflow/default/runner/pid.json" ] && (cd "$TMP/ws" && delta workflow stop @default >/dev/null 2>&1) || true
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || true; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() {
	echo "run.sh: $*" >&2
	for f in "$TMP"/w1.log "$TMP"/w2.log "$TMP"/ws/.workflow/default/runner/runner.log; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
	done
	exit 1
}
# waitfor SECONDS COMMAND...: until COMMAND succeeds.
waitfor() {
	end=$(($(date +%s) + $1)); shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.2
	done
}

echo "== delta cluster serve (one node, a free port), leases of 6s" >&2
delta cluster serve --listen 127.0.0.1:0 --name demo --store "$TMP/store" >"$TMP/ready.json" 2>"$TMP/serve.log" &
SERVE=$!
PIDS=$SERVE
waitfor 30 test -s "$TMP/ready.json" || fail "the node did not start: $(cat "$TMP/serve.log")"
DELTA_CLUSTER=$(sed 's/.*"url":"\([^"]*\)".*/\1/' "$TMP/ready.json")
export DELTA_CLUSTER
# Short leases and ack deadlines, so the demo's failovers take seconds.
delta cluster init --lease-ttl 6s >/dev/null

echo "== two workers on queue review" >&2
delta worker --queue review --name w1 --root "$TMP/w1" --ack-wait 6s 2>"$TMP/w1.log" &
W1=$!
delta worker --queue review --name w2 --root "$TMP/w2" --ack-wait 6s 2>"$TMP/w2.log" &
W2=$!
PIDS="$W1 $W2 $SERVE"

echo "== the workflow's directory, which the workers share: $TMP/ws" >&2
mkdir "$TMP/ws"
cp -R examples/cluster-workflow/workflow.yaml examples/cluster-workflow/greet.sh \
	examples/cluster-workflow/prompts examples/cluster-workflow/scripts "$TMP/ws/"
cd "$TMP/ws"

echo "== delta workflow start --cluster (the controller, then a standby)" >&2
delta workflow start workflow.yaml --cluster "$DELTA_CLUSTER" --background
delta workflow start workflow.yaml --cluster "$DELTA_CLUSTER" --background

waitfor 120 test -f .fix-started || fail "the coder's tool did not start"
CONTROLLER=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' .workflow/default/runner/pid.json)
if grep -q 'delivery to coder' "$TMP/w1.log"; then VICTIM=$W1 NAME=w1; else VICTIM=$W2 NAME=w2; fi
echo "== the coder's tool runs on $NAME: kill -9 the controller (pid $CONTROLLER) and $NAME" >&2
kill -KILL "$CONTROLLER" "$VICTIM"
wait "$VICTIM" 2>/dev/null || true

echo "== waiting for the standby and the other worker to finish the review" >&2
waitfor 180 sh -c 'delta workflow channel read --cluster "$DELTA_CLUSTER" --instance default | grep -q LGTM' ||
	fail "the review did not end"
grep 'took over as its controller' .workflow/default/runner/runner.log >&2

echo "== the channel" >&2
delta workflow peek @default -n 10
echo "== greet.sh, fixed before the kill" >&2
cat greet.sh
echo "== the coder's tool: ran $(grep -c . apply_fix.log) time(s); what its run was told:" >&2
grep -o '"observation_content":"error: this tool call was interrupted[^"]*"' .delta/coder.default/journal.jsonl >&2 ||
	fail "the coder's run does not report its call interrupted"
[ "$(grep -c . apply_fix.log)" = 1 ] || fail "the coder's tool ran more than once"
delta workflow stop @default >/dev/null
echo "run.sh: ok" >&2
