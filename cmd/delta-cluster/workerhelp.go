package main

// Help is delta worker's description in --help and its man page.
func (*WorkerCmd) Help() string {
	return `A worker pulls the tasks of one queue (delta batch submit --queue NAME) and runs each as an ordinary delta-run run, one per free slot. Every worker of a queue shares one durable consumer, so each task goes to one worker at a time.

Per task: the run id is BATCH.TASK for the first attempt and BATCH.TASK.aN for attempt N. The worker holds the task's lease (task.BATCH.TASK in delta_leases) while it runs it; a task another live worker holds is handed back with a delay. A task that already has its result is acked and not run again (a worker died between publishing the result and acking); so is one whose earlier attempt's run ended in the cluster's mirrored journal (its worker died before publishing the result): that run's result is published. The workspace is ROOT/BATCH/RUN_ID/: a clone of the task's workspace.git at workspace.ref, or an empty directory; delta-run's stderr goes to ROOT/BATCH/RUN_ID.log. The agent is fetched from the cluster once per content hash into ROOT/agents/HASH/.

The child is "delta-run run AGENT -w WS --run-id RUN -m MESSAGE --approvals deny --format json", with the task's --llm and env, and DELTA_CLUSTER (and DELTA_CLUSTER_CREDS) set to this worker's cluster. It runs under delta-exec-guard, in a process group of its own, and ends with everything it started when the worker dies, even by SIGKILL. While it runs, the worker tells the cluster every third of --ack-wait that the task is in progress; a worker that stops doing so (killed, frozen, cut off) loses the task to another worker after --ack-wait.

Outcomes: exit 0 or 1 publishes the run's result (completed or failed, with its usage and cost) and acks the task; exit 101 (the run waits for a human) publishes a waiting result; exit 126 (a configuration error) fails the task at once without retrying. Anything else (the run interrupted, delta-run killed, the workspace not made) hands the task back for a fresh attempt, and the next attempt's result lists the earlier ones under previous. After --max-attempts attempts the task fails with "gave up after N attempts".

Each worker registers in delta_workers (QUEUE.NAME: name, host, queue, slots, busy, pid) and renews it every third of the lease TTL, so delta cluster status shows the live ones.

SIGTERM or SIGINT drains: the worker takes no new task, lets the running ones finish, deregisters and exits 0. A second signal interrupts the running runs as Ctrl-C would (they end INTERRUPTED) and hands their tasks back.`
}

// Help is delta batch's description in --help and its man page.
func (*BatchCmd) Help() string {
	return `A batch is a file of tasks, one JSON object per line: {"id": "t1", "message": "…", "workspace": {"git": URL, "ref": REF}, "env": {"NAME": "VALUE"}, "llm": "PROVIDER:MODEL"} (workspace, env and llm optional; without workspace a task gets an empty directory). Task ids are letters, digits, '_' and '-', unique in the batch. submit checks every line before it queues anything and names the line of an error.

submit packs the agent directory (its .delta directories and the W001 … workspaces of runs made in place left out) into the cluster by its content hash, records the batch, and queues each task on the queue with the message id BATCH:TASK, so submitting the same batch again queues nothing that is queued or done. It prints {"batch", "tasks", "queue", "queued"}.

Tasks are delivered at least once and completed effectively once: each has one result (message id BATCH:TASK on DELTA_RESULTS), a worker that died mid-task has its task retried as a fresh run after the queue's ack wait, and a configuration error is not retried. A fresh attempt is a new run in a new workspace: it starts over and runs its tools again (continuing the interrupted run on another host needs a workspace both hosts share, which workers do not offer yet).

status counts the tasks: done (completed, failed, waiting), running, pending, and the attempts made. wait follows the results with a progress line on stderr until every task has one, and exits 0 when all completed, 1 otherwise. results prints one JSON line per task with a result, in the order they came: {batch, task, run_id, status, result, error, usage, cost, host, worker, attempts, previous: [{run_id, status, …}]}.`
}
