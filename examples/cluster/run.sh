#!/bin/sh
# run.sh — a cluster on this machine, offline: one node (delta cluster
# serve), two workers, a batch of six tasks with the scripted model; it
# waits for the batch, prints its results and the cluster's status, and
# cleans everything up (the node's store and the workers' directories are
# in a temporary directory). Run it from the repository root after
# make build:  sh examples/cluster/run.sh
set -eu
cd "$(dirname "$0")/../.."
BIN=${BIN:-./bin}
if [ ! -x "$BIN/delta-cluster" ] || [ ! -x "$BIN/delta-run" ]; then
	echo "run.sh: $BIN/delta-cluster or $BIN/delta-run not found; run 'make build' first" >&2
	exit 1
fi
PATH=$(cd "$BIN" && pwd):$PATH
export PATH
TMP=$(mktemp -d "${TMPDIR:-/tmp}/delta-cluster.XXXXXX")
PIDS=""
cleanup() {
	# SIGTERM: the workers drain, the node shuts down cleanly.
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || true; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== delta cluster serve (one node, a free port, its store in $TMP/store)" >&2
delta cluster serve --listen 127.0.0.1:0 --name demo --store "$TMP/store" >"$TMP/ready.json" 2>"$TMP/serve.log" &
SERVE=$!
# The node prints one line when it accepts clients; wait for it.
while [ ! -s "$TMP/ready.json" ]; do
	kill -0 "$SERVE" 2>/dev/null || { cat "$TMP/serve.log" >&2; exit 1; }
	sleep 0.1
done
DELTA_CLUSTER=$(sed 's/.*"url":"\([^"]*\)".*/\1/' "$TMP/ready.json")
export DELTA_CLUSTER
echo "   $(cat "$TMP/ready.json")" >&2

echo "== two workers on queue demo, two slots each" >&2
delta worker --queue demo --slots 2 --name w1 --root "$TMP/w1" 2>"$TMP/w1.log" &
W1=$!
delta worker --queue demo --slots 2 --name w2 --root "$TMP/w2" 2>"$TMP/w2.log" &
W2=$!
# Stopped in this order at the end: workers first, then the node.
PIDS="$W1 $W2 $SERVE"

echo "== delta batch submit examples/cluster/tasks.jsonl" >&2
delta batch submit examples/cluster/tasks.jsonl --agent examples/cluster/agent --queue demo --batch demo

echo "== delta batch wait demo" >&2
delta batch wait demo

echo "== delta batch results demo (one line per task)" >&2
if command -v jq >/dev/null 2>&1; then
	delta batch results demo | jq -c '{task, run_id, status, worker, attempts, result}'
else
	delta batch results demo
fi

echo "== delta cluster status" >&2
delta cluster status
echo "run.sh: ok" >&2
