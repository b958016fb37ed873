package main

import (
	"github.com/alecthomas/kong"

	"github.com/deltakit/delta/lib/cli"
)

// CLI is delta-workflow's grammar.
type CLI struct {
	cli.ManFlag

	Run      RunCmd      `cmd:"" help:"Run a workflow until it is idle: setup, kickoff, then the agents collaborate; prints a summary."`
	Start    StartCmd    `cmd:"" help:"Start a workflow and keep it running until stopped (--background to detach)."`
	Stop     StopCmd     `cmd:"" help:"Stop an agent (AGENT@INSTANCE), an instance (@INSTANCE) or every instance here (--all)."`
	List     ListCmd     `cmd:"" aliases:"ls" help:"List the agents of the instances here: NAME, SOURCE, STATUS."`
	Send     SendCmd     `cmd:"" help:"Post a message to an instance's channel, @mentioning the agent it is for."`
	Peek     PeekCmd     `cmd:"" help:"Show an instance's recent channel, and an agent's status and inbox."`
	Validate ValidateCmd `cmd:"" help:"Check a workflow file (and the agents it names) without running it."`
	Deliver  DeliverCmd  `cmd:"" hidden:"" help:"Run one delivery of a workflow task (what delta worker runs; the task on stdin)."`

	ContextCmds `embed:""`
}

// Help is the description at the top of --help and the man page.
func (CLI) Help() string {
	return `delta-workflow runs multi-agent workflows. A workflow file (man 5 delta-workflow) names agents; a kickoff message posted to a shared channel @mentions the first of them, and from then on every @mention wakes the agent it names. Each agent is an ordinary Delta run — one long-lived run per agent and instance, run id AGENT.INSTANCE, in the directory the workflow runs in — continued each time it is woken with a digest of its inbox (the unread messages that mention it), the recent channel and the shared document; so delta log, delta stop, delta send and delta list-runs work on it as on any run. Agents use the workflow tools (channel_send, channel_read, inbox_check, document_read, document_write, proposal_create, vote, …) to talk and keep notes. An agent can also be any command-line agent that reads its prompt on stdin (backend: command, e.g. claude -p), reaching the same tools over MCP.

Instances: each run of a workflow is an instance (--instance NAME, default "default") whose files live in .workflow/NAME/ under the current directory (--dir, or context.config.dir in the file, to put them elsewhere): the channel (channel.jsonl, rendered as channel.md), the inbox cursors, the documents (documents/), the proposals, and the runner's own state (runner/state.json: setup done and its variables, kickoff posted) and agents/NAME/ (the agent directory generated for an inline agent, its status and the delivery in progress). Running or starting an instance that exists resumes it: the setup and the kickoff are not repeated. An instance belongs to the workflow that created it (by its name): another workflow given the same instance is refused, so two workflows in one directory need an --instance each.

Boards in a cluster: run and start --cluster URL keep the instance's board (channel, inbox cursors, documents, proposals) in a Delta cluster (delta-cluster(7)) instead of its directory, which keeps only the runner's state and remembers the cluster: list, peek, send and the context commands run there find the board through it, and from any other host the context commands reach it with --cluster URL --instance NAME. Each agent's run gets its workflow tools from the cluster's board (delta-workflow mcp --cluster, named by DELTA_WORKFLOW_CLUSTER, DELTA_WORKFLOW_INSTANCE and DELTA_WORKFLOW_AGENT), so a person continuing it later still has them. An instance's board stays where it was created, and an instance name in the cluster is one workflow's: another workflow's run with it is refused. One controller drives an instance, whatever host it runs on: it holds the instance's lease in the cluster, and a second run is refused naming the first; a second start waits as a standby ("standby (pid N)" on stderr, "as a standby" from start --background) and takes over when the controller stops or its lease lapses, resuming without repeating the setup, the kickoff or any delivery. After a controller of this host was killed (kill -9) its lease is taken over at once; one on another host waits for the lease to expire.

Agents on queues: with --cluster, a Delta agent that has a queue (queue: on the agent or the whole file, man 5 delta-workflow) does not run on the controller's host: each delivery to it is a task on that queue, run by whichever delta worker serves it (delta-cluster(1)), and the controller waits for the task's result. The agent's run still lives in the workflow's directory, which every worker of the queue must mount at the same path (workspace_sync: shared, or --workspace-sync shared); the next delivery continues the run on whichever worker takes it. A worker that dies mid-delivery leaves the run to the next one, which continues it: the tool call it was in is reported to the agent as interrupted, never run twice. A controller that stops by itself (killed, its lease lost) leaves its agents' tasks running; the next controller (a standby, or a restart) waits for the same task instead of queuing another. delta workflow stop also stops the runs that workers hold for the instance (or the agent): it asks each run's holder through the cluster, as delta stop --run-id AGENT.INSTANCE --cluster URL does, and waits until the run has ended INTERRUPTED ("run AGENT.INSTANCE stopped on its worker" on stderr); the next start continues it there, the interrupted tool call reported to the agent, never run again. A task still in the queue when stop runs (no worker took it yet) is not stopped: a worker runs it later, and the next start takes its result. Agents without a queue run on the controller's host as without --cluster. workspace_sync: none and git are not supported for agents on queues yet: such a workflow is refused before anything runs.

Delivery: one controller per agent is idle, running, waiting (its run waits for a human: ask_human or an approval; answer it with delta continue --run-id AGENT.INSTANCE -m ANSWER, or write the run's interaction/response.txt, and the workflow goes on), failed or stopped. A controller is woken at once when a new channel message mentions its agent, and polls the inbox as a fallback (--poll, default 5s). An agent's run stopped from outside (delta stop --run-id AGENT.INSTANCE) stops the agent until the instance is started again. The inbox is acknowledged only after the agent's run succeeded; a failed run is retried (3 attempts, 1s then 2s apart) and then its messages stay unread until a newer message arrives (or the instance is started again); a run that fails with a configuration or permission error (delta-run exits 126: a broken agent.yaml, a missing key or model; a command agent whose command is not found or not executable, the shell's 127 or 126) is not retried, as it would fail the same way: the agent fails at once, its status and error saying so; one agent's failure never stops the others.

Crashes: everything is in files written atomically, so the runner can be killed at any moment (even kill -9) and started again with run or start on the same instance: no channel message is lost or repeated, unacknowledged messages are delivered again, interrupted agent runs are continued, and agent runs that outlived the runner (delta-run is not killed with it) are waited for, never started twice.

run ends when the workflow is idle: every agent idle, no unread message (but those an agent failed on), no open proposal, for 2 seconds (--debounce) with nothing new on the channel. It prints a summary (--json: {workflow, instance, dir, status, agents: [{name, backend, run_id, status, runs, input_tokens, output_tokens, unread, error}], channel_entries, channel: the last 10 entries, document, documents: {name: content}}). Progress goes to stderr: each channel message as it is posted, each agent's deliveries; -v adds the agents' own live output, each line prefixed with the agent's name (it is always written to .workflow/NAME/agents/AGENT/run.log).

start keeps the instance running until stop (or Ctrl-C); --background detaches it, its output in .workflow/NAME/runner/runner.log. stop @NAME stops an instance's runner (SIGTERM: running agent runs are interrupted, to be continued when it starts again) and, with its board in a cluster, the runs of its agents on queues that workers run (see Agents on queues); stop AGENT@NAME stops one agent until the instance is started again; stop --all stops every running instance, here and elsewhere. list shows every agent of every instance here (under .workflow/, and those working here with their files elsewhere: context.config.dir, --dir), list --all those of every instance the user started, wherever it is; runners note each instance they drive in $XDG_STATE_HOME/delta/workflows/ (else ~/.local/state/delta/workflows/) for this. Every command that takes @NAME or --instance NAME finds such an instance by its name too; send posts a message as "user" (with the @mention it needs: --to AGENT@NAME; without --to, a message that @mentions an agent goes as it is, else to the workflow's agent if it has only one, and with several the error lists them); peek shows the channel's tail.

Exit status: 0 done (run: the workflow completed; others: success); 1 run ended with an agent that failed (every attempt, or at once with a configuration error), or an error; 2 bad command line; 3 (stop) nothing was running; 126 the workflow file is invalid (file:line:col and a hint for each problem); 130 interrupted.`
}

// BeforeReset gives the man page its NAME line.
func (c *CLI) BeforeReset(k *kong.Kong) error {
	k.Model.Help = "run multi-agent workflows of Delta agents that talk through a shared channel"
	return nil
}
