package main

import (
	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/cli"
)

// CLI is delta-run's grammar. run is the default command, so
// `delta-run -m "task"` starts a run.
type CLI struct {
	cli.ManFlag

	Run      RunCmd      `cmd:"" default:"withargs" help:"Start a new run of an agent (the default command)."`
	Continue ContinueCmd `cmd:"" help:"Continue an existing run: resume it, answer its ask_human, extend or retry it."`
	ListRuns ListRunsCmd `cmd:"" name:"list-runs" help:"List the runs of a workspace."`
	Stop     StopCmd     `cmd:"" help:"Stop running runs the way Ctrl-C does, and wait until they are INTERRUPTED."`
	Log      LogCmd      `cmd:"" help:"Show a run's events as the live stream shows them; -f follows a running run."`
	Init     InitCmd     `cmd:"" help:"Create a new agent directory from a template (minimal, hello-world, sessions, file-ops, api-tester)."`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-run is the Delta engine. It runs an agent's think-act-observe loop: rebuild the context from the run's files (context.yaml), call the model, journal its thought, run the tools it asked for, and repeat until the model answers without a tool call. The engine keeps nothing in memory between iterations; journal.jsonl is the single source of truth, so any run can be resumed after a crash. The delta front runs it as "delta run", "delta continue", "delta list-runs" and "delta init".

Runs live in WORKSPACE/.delta/RUN_ID/: journal.jsonl (man 5 delta-journal), metadata.json (status, iterations, pid, hostname, start time, token usage and model_usage per model, the --llm override as llm; written atomically), engine.log, io/invocations/ (every model request and response), io/tool_executions/ (argv, stdin, exit code, duration and the whole output of each call: inline, or in stdout.log/stderr.log beside the record when over 256 KiB), io/hooks/, io/generators/ (each computed_file generator run: command, exit code, output), and interaction/ while the run waits for a human. Without -w, run creates the next workspace W001, W002 … under the agent and records it in workspaces/LAST_USED (on a terminal without -y it first offers the existing ones). A run directory appears whole or not at all: it is built under a temporary name (.delta/.tmp-…) and renamed into place, so a run killed at any moment of its start is either absent (its id free again) or can be continued; a run refused before its first event (a plugin that does not start) is removed. Signals are caught before the run directory exists.

The model is offered the agent's tools (man 5 delta-agent), plugin tools, and the built-in ask_human. A tool's non-zero exit, timeout, unknown name or bad arguments become observations the model sees (is_error), never a crash. Tools run in their own process group in the workspace, with the environment filtered of secrets (see ENVIRONMENT); provider keys from .env files never reach them. A tool is stopped after its timeout (timeout_ms, else the agent's tool_timeout_ms, else 120 s) with SIGTERM, then SIGKILL 2 s later, and it dies with delta-run even when delta-run is killed with SIGKILL. The one exception is a process that calls setsid(2) (daemons; delta-sessions and delta-pty holders rely on it): it leaves the tool's session and survives the run. To leave a server running, detach it before the tool exits: setsid -w sh -c 'server >server.log 2>&1 </dev/null &' (setsid -f returns before the server has detached, so a tool that exits right after it may take the server with it). The model sees the output truncated to 30000 characters and 256 lines (head and tail, with a marker); the full output stays in io/tool_executions.

ask_human: with -i the question is shown on stderr and the answer read from the terminal (hidden when sensitive) or, when stdin is not a terminal, as one line of stdin. Without -i the run pauses: interaction/request.json is written, the status becomes WAITING_FOR_INPUT and delta-run exits 101. Answer with "continue --run-id ID -w WS -m ANSWER", or write interaction/response.txt and run "continue --run-id ID -w WS".

Iteration limit: --max-iterations bounds the iterations of one invocation (default agent.yaml max_iterations, else 30). Reaching it fails the run (FAILED, error type max_iterations, exit 1) so scripts notice; "continue -m" grants a fresh budget.

Error types (error.type of a FAILED run): max_iterations; max_turns (agent.yaml max_turns, a cap over all invocations of the run); llm_error (the model endpoint failed after retries, or timed out: llm.timeout_ms); context_overflow (the endpoint refused a request longer than the model's context window; the details say what to change); context_error (context.yaml could not be built); engine_error. Loop detection and the context window warning are SYSTEM_MESSAGE events the model sees (delta-agent(5): loop_detection, llm.context_window).

continue follows the run's status: INTERRUPTED resumes (-m optional, appended as a user message; when the run stopped while ask_human waited, -m is the answer); WAITING_FOR_INPUT takes -m (or an existing response.txt) as the answer; COMPLETED needs -m, a new user message; FAILED needs -m, or --retry to ask the model again where the run stopped once its cause is fixed (an endpoint down, a key, a limit), with no message added; RUNNING runs the janitor: when the recorded process is gone the run becomes INTERRUPTED and resumes, when it is alive continue is refused, and a run started on another host needs --force. A tool call left unfinished by a crash is recorded as interrupted (it is not run twice); a call that never started is run. A torn last journal line (a crash mid-write) is cut off first; its bytes are kept in journal.jsonl.torn-TIME. Two processes never drive one run at once (a lock in the run directory). A run whose directory is removed, or whose journal.jsonl is replaced, while it runs stops at once with an error saying so (exit 1) instead of going on without its history; nothing recreates the removed directory. Without -w, continue and list-runs look in the current directory and, when it is an agent directory, in its workspaces too, so "delta continue --run-id ID" works from where "delta run -m …" was typed; run --run-id without -w refuses an id that one of the agent's workspaces already holds.

stop: "delta stop --run-id ID [-w WS]" stops a running run the way Ctrl-C does (SIGINT: the running tool is stopped, its interrupted result journaled, the run ends INTERRUPTED) and waits until it has (--timeout, default 10s); --force then kills it (SIGKILL, its tools die with it) and marks it INTERRUPTED. The recorded process is checked to be that run's (pid and process start time, this host) and is held by a pidfd while it is signalled, so a recycled pid is never signalled. "delta stop --all [-w WS]" stops every running run of the workspace(s) at once. stdout: the outcome as JSON ({run_id, workspace, pid, status, signal, waited_ms}; an array with --all). A run that is not running (finished, paused, or its process gone) gets a message and exit 3.

log: "delta log [--run-id ID | --last] [-w WS]" prints a run's events, live or finished, exactly as the live stream shows them (-v as with run -v); -f keeps following a running run until it stops; --format json prints one stream-json line per event instead.

stream-json: with --format stream-json, run and continue print on stdout one JSON line per journal event as it is written, {"schema_version": "delta.stream/1", "type": "event", "event": EVENT} (EVENT as in delta-journal(5)), and last {"schema_version": "delta.stream/1", "type": "result", "result": RUNRESULT}; for example: delta run -m TASK --format stream-json | jq -r 'select(.type=="event") | .event.type'. The live stream still goes to stderr.

Messages: -m TEXT, -m - (the whole of stdin) or --message-file FILE, on run and continue. continue --last takes the latest run (newest first, as list-runs shows them) of -w, or of the current directory and an agent directory's workspaces, instead of --run-id.

Signals: SIGINT, SIGTERM or SIGHUP (terminal closed) stops the running tool, journals its interrupted result and ENGINE_END INTERRUPTED, and exits 130 after one line on stderr: "delta-run: interrupted: run ID stopped; resume with: delta continue --run-id ID -w WS". A reader of the live stream going away (delta run … 2>&1 | head -1) does not stop the run: the stream is dropped and the run goes on to its end. A run waiting for input (101) prints only its guidance: "Agent paused. Provide response in WS/.delta/ID/interaction/response.txt" and "Or use: delta continue --run-id ID -w WS -m <response>".

Hooks (hooks.yaml, man 5 delta-agent) run synchronously. pre_llm_request, post_llm_response, pre_tool_execution and post_tool_execution may modify: their output/final_payload.json, shaped like input/payload.json, is merged into the request, the model's answer (content, tool_calls, finish_reason — before it is journaled and acted on), the tool arguments, or the observation the model sees (observation, is_error — io/tool_executions keeps the full output). pre_tool_execution may block the call. Every hook that ran is journaled as HOOK_EXECUTION with its decision (man 5 delta-journal).

Output: stderr carries the live stream (iteration headers, thoughts, tool calls with their arguments, abbreviated observations; -v shows them whole plus token usage, hooks and retried model requests), coloured only on a terminal and never with NO_COLOR; control characters and invalid UTF-8 of tool output are shown escaped (^[, U+FFFD) so that no tool can drive the terminal (io/ and the journal keep the bytes). stdout carries only the result: --format text a summary, --format json the RunResult v2.0 document {schema_version, run_id, status, result | error {type, message, details} | interaction {prompt, input_type, sensitive}, metrics {iterations, duration_ms, start_time, end_time, usage {total_cost_usd, input_tokens, output_tokens, model_usage}}, metadata {agent_name, workspace_path}}, --format raw the result alone (nothing unless COMPLETED). The result is the model's final text, parsed as JSON when it is valid JSON. total_cost_usd is priced from a built-in table of common models' list prices (see delta-agent(5), llm.price, to set your own); a model the table does not know counts 0.

Environment: DELTA_API_KEY and DELTA_BASE_URL (or OPENAI_* / ANTHROPIC_*), and DELTA_MODEL, read from WORKSPACE/.env, AGENT/.env, the project root's .env and the environment, in that order of precedence. Tools, hooks, generators and plugins get the environment without its secrets: a variable is a secret when a word part of its name (split at _ - . and camelCase, any case) is KEY, SECRET, TOKEN, PASSWORD, PASSWD, PWD, CREDENTIAL(S), AUTH, PAT, COOKIE or SESSION, or a name ends in a run-together form such as APIKEY or AUTHTOKEN, or it is AWS_*, DATABASE_URL, npm_config_*auth*, or its value is a URL with a password; PWD and OLDPWD are not secrets. agent.yaml's env.passthrough lets a named one through, env.deny removes more (man 5 delta-agent). Command tools also get AGENT_HOME and DELTA_RUN_ID. Should a tool or plugin print a secret's value anyway (found in a file, say), the values of the environment's and the .env files' secrets (6 characters or more) are replaced by [REDACTED:NAME] in what the run writes and sends: tool observations, the journal, the tool output files under io/tool_executions, hook inputs, the requests to the model (context files included) and the live stream.

Provider and model: --llm overrides agent.yaml's llm block. --llm openai:MODEL or --llm anthropic:MODEL picks the provider and the model; --llm openai (no model) takes DELTA_MODEL, else llm.model; without --llm, llm.model is used and DELTA_MODEL only fills in when it is empty. A real provider whose model ends up empty or "scripted" (as in the offline hello-world agent) is refused at once (exit 126). --llm scripted:FILE replays FILE offline (turns: [{content, tool_calls: [{name, args}]}]).

Examples: "delta-run init hello -t hello-world && delta-run run --agent hello -m 'Say hello' -y"; "delta-run run --agent ./agent -m 'Process batch' --run-id $(uuidgen) --format json"; "delta-run continue --run-id $(delta-run list-runs --resumable --first)".

Exit status: 0 the run COMPLETED (stop: the runs stopped); 3 (stop) the run is not running; 1 it FAILED (including reaching the iteration limit), continue found no such run, or the run is live (or on another host without --force); 2 bad command line; 101 it is WAITING_FOR_INPUT; 126 configuration error (agent, provider, flags combination, duplicate or invalid run id, and continue without the -m a COMPLETED, FAILED or WAITING_FOR_INPUT run needs); 130 INTERRUPTED.`
}

// BeforeReset gives the man page its NAME line (kong takes the one-line
// summary from the application's Help, which cli.Run leaves empty).
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "run, continue and list Delta agent runs, and create agents from templates"
	return nil
}
