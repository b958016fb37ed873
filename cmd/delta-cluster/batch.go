package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/cluster"
	"github.com/deltakit/delta/lib/runs"
)

// BatchCmd submits batches and follows them.
type BatchCmd struct {
	Submit  BatchSubmitCmd  `cmd:"" help:"Queue one task per line of a tasks file (JSONL) for the workers of a queue."`
	Status  BatchStatusCmd  `cmd:"" help:"Show how many of a batch's tasks are done, failed, running and pending."`
	Wait    BatchWaitCmd    `cmd:"" help:"Wait until every task of a batch has a result; exit 0 when all completed, 1 otherwise."`
	Results BatchResultsCmd `cmd:"" help:"Print the results of a batch as JSONL, one line per task that has one."`
}

// BatchSubmitCmd is delta batch submit.
type BatchSubmitCmd struct {
	ClusterFlags `embed:""`
	Tasks        string `arg:"" help:"The tasks file: one JSON object per line, {id, message, workspace?: {git, ref?}, env?: {NAME: VALUE}, llm?}." type:"existingfile" placeholder:"TASKS.jsonl"`
	Agent        string `required:"" help:"The agent directory every task runs (packed into the cluster, so workers on other hosts get it)." type:"existingdir" placeholder:"DIR"`
	Queue        string `required:"" help:"The queue the tasks go to: workers started with --queue NAME run them." placeholder:"NAME"`
	Batch        string `help:"The batch id (default: a new one, YYYYMMDD_HHMMSS_hex). Submitting a batch again queues only its tasks not queued before." placeholder:"ID"`
	MaxAttempts  int    `name:"max-attempts" default:"3" help:"Attempts per task at most: a task whose worker died is retried as a fresh run until then, and then recorded failed." placeholder:"N"`
	Sync         string `name:"workspace-sync" enum:",none,git,shared" default:"" help:"How a run whose worker died goes on (default: workspace_sync: in the agent's agent.yaml, else none): none starts a fresh attempt; git continues the same run on the next worker from a snapshot of its workspace stored after each tool result (every task needs a git workspace); shared continues it in place (every worker's --root on storage they all mount at the same path)." placeholder:"POLICY"`
}

// submitted is what submit prints.
type submitted struct {
	Batch  string `json:"batch"`
	Tasks  int    `json:"tasks"`
	Queue  string `json:"queue"`
	Queued int    `json:"queued"` // tasks queued by this submission (not before)
}

// Run validates every line, stores the agent and the batch record, then
// queues the tasks.
func (c *BatchSubmitCmd) Run(std cli.Stdio) error {
	if c.Batch == "" {
		c.Batch = runs.NewID()
	}
	if err := checkBatchFlags(c.Batch, c.Queue, c.MaxAttempts); err != nil {
		return err
	}
	if err := checkAgentDir(c.Agent); err != nil {
		return err
	}
	tasks, err := readTasks(c.Tasks, c.Batch)
	if err != nil {
		return err
	}
	sync, err := batchSync(c.Sync, c.Agent, tasks)
	if err != nil {
		return err
	}
	data, hash, err := cluster.PackAgent(c.Agent)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := c.connect(ctx, "delta batch submit")
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.PutAgent(ctx, hash, data); err != nil {
		return err
	}
	want := cluster.Batch{ID: c.Batch, Queue: c.Queue, Agent: hash, Total: len(tasks), MaxAttempts: c.MaxAttempts,
		Submitted: time.Now().UTC().Format(time.RFC3339)}
	got, err := cl.PutBatch(ctx, want)
	if err != nil {
		return err
	}
	if got.Queue != want.Queue || got.Agent != want.Agent || got.Total != want.Total || got.MaxAttempts != want.MaxAttempts {
		return cli.Errorf(runs.ExitFailed, "give it another --batch id, or submit the same tasks file, agent, queue and --max-attempts again",
			"batch %s was submitted before with another queue, agent, task count or --max-attempts (queue %s, %d tasks)", c.Batch, got.Queue, got.Total)
	}
	queued := 0
	for _, t := range tasks {
		t.Agent, t.MaxAttempts, t.Sync = hash, c.MaxAttempts, sync
		// A task with a result is done: queueing it again past the
		// stream's duplicate window would run it twice.
		if r, err := cl.TaskResult(ctx, c.Batch, t.ID); err != nil {
			return err
		} else if r != nil {
			continue
		}
		dup, err := cl.PublishTask(ctx, c.Queue, t)
		if err != nil {
			return fmt.Errorf("%w (the tasks queued so far stay queued; submit again with --batch %s to queue the rest)", err, c.Batch)
		}
		if !dup {
			queued++
		}
	}
	return writeJSON(std, submitted{Batch: c.Batch, Tasks: len(tasks), Queue: c.Queue, Queued: queued})
}

func checkBatchFlags(batch, queue string, maxAttempts int) error {
	if err := cluster.CheckName("batch id", batch); err != nil {
		return cli.WithCode(cli.ExitUsage, "", fmt.Errorf("--batch: %w", err))
	}
	if err := cluster.CheckName("queue", queue); err != nil {
		return cli.WithCode(cli.ExitUsage, "", fmt.Errorf("--queue: %w", err))
	}
	if maxAttempts < 1 {
		return cli.Errorf(cli.ExitUsage, "", "--max-attempts %d: a task needs at least 1 attempt", maxAttempts)
	}
	return nil
}

func checkAgentDir(dir string) error {
	for _, name := range []string{"agent.yaml", "agent.yml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return nil
		}
	}
	return cli.Errorf(cli.ExitUsage, "give --agent the directory holding the agent's agent.yaml", "--agent %s has no agent.yaml", dir)
}

func writeJSON(std cli.Stdio, v any) error {
	enc := json.NewEncoder(std.Out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// BatchStatusCmd is delta batch status.
type BatchStatusCmd struct {
	ClusterFlags `embed:""`
	ID           string `arg:"" name:"batch" help:"The batch id submit printed."`
	JSON         bool   `name:"json" help:"Print the counts as one JSON object."`
}

// Run prints the batch's counts.
func (c *BatchStatusCmd) Run(std cli.Stdio) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := c.connect(ctx, "delta batch status")
	if err != nil {
		return err
	}
	defer cl.Close()
	s, err := cl.Status(ctx, c.ID)
	if err != nil {
		return batchErr(err)
	}
	if c.JSON {
		return writeJSON(std, s)
	}
	_, err = fmt.Fprintf(std.Out, "batch %s (queue %s): %d tasks: %d done (%d completed, %d failed, %d waiting), %d running, %d pending; %d attempts\n",
		s.Batch, s.Queue, s.Total, s.Done, s.Completed, s.Failed, s.Waiting, s.Running, s.Pending, s.Attempts)
	return err
}

func batchErr(err error) error {
	if errors.Is(err, cluster.ErrNoBatch) {
		return cli.WithCode(runs.ExitFailed, "check the id that delta batch submit printed", err)
	}
	return err
}

// BatchWaitCmd is delta batch wait.
type BatchWaitCmd struct {
	ClusterFlags `embed:""`
	ID           string `arg:"" name:"batch" help:"The batch id submit printed."`
}

// Run follows the batch's results until every task has one, with a
// progress line on stderr for each.
func (c *BatchWaitCmd) Run(std cli.Stdio) error {
	ctx, cancel := signalContext()
	defer cancel()
	cl, err := c.connect(ctx, "delta batch wait")
	if err != nil {
		return err
	}
	defer cl.Close()
	b, err := cl.GetBatch(ctx, c.ID)
	if err != nil {
		return batchErr(err)
	}
	s := cluster.BatchStatus{Batch: b.ID, Total: b.Total}
	progress := func() {
		fmt.Fprintf(std.Err, "batch %s: %d/%d done (%d completed, %d failed, %d waiting)\n",
			s.Batch, s.Done, s.Total, s.Completed, s.Failed, s.Waiting)
	}
	progress()
	err = cl.Results(ctx, c.ID, true, func(r cluster.Result) error {
		s.Count(r)
		progress()
		if s.Done >= s.Total {
			return cluster.ErrStop
		}
		return nil
	})
	if err != nil {
		return err
	}
	if s.Completed < s.Total {
		return cli.Errorf(runs.ExitFailed, fmt.Sprintf("see which with: delta batch results %s", c.ID),
			"batch %s: %d of %d tasks did not complete (%d failed, %d waiting)", c.ID, s.Total-s.Completed, s.Total, s.Failed, s.Waiting)
	}
	return nil
}

// BatchResultsCmd is delta batch results.
type BatchResultsCmd struct {
	ClusterFlags `embed:""`
	ID           string `arg:"" name:"batch" help:"The batch id submit printed."`
}

// Run prints one JSON line per result, in the order the results came.
func (c *BatchResultsCmd) Run(std cli.Stdio) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := c.connect(ctx, "delta batch results")
	if err != nil {
		return err
	}
	defer cl.Close()
	if _, err := cl.GetBatch(ctx, c.ID); err != nil {
		return batchErr(err)
	}
	return cl.Results(ctx, c.ID, false, func(r cluster.Result) error { return writeJSON(std, r) })
}
