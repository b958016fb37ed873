package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// With --cluster, send, stop, log and list-runs work on a run on any
// host: delta-cluster does the cluster's part and prints what the local
// verb prints (log renders a copy pulled into a temporary workspace).

func (c *SendCmd) sendThroughCluster(std cli.Stdio, msg string) error {
	if c.RunID == "" {
		return cli.Errorf(cli.ExitUsage, "name the run: delta send --run-id ID --cluster URL (see delta list-runs --cluster URL)", "--cluster needs --run-id")
	}
	args := []string{"--run-id", c.RunID, "-m", "-"}
	if c.FollowUp {
		args = append(args, "--follow-up")
	}
	std.In = strings.NewReader(msg)
	return c.runClusterVerb(std, "send", args...)
}

func (c *StopCmd) stopThroughCluster(std cli.Stdio) error {
	if c.All {
		return cli.Errorf(cli.ExitUsage, "stop each with --run-id ID (see delta list-runs --cluster URL)", "--all works on a workspace, not with --cluster")
	}
	args := []string{"--run-id", c.RunID, "--timeout", c.Timeout.String()}
	if c.Force {
		args = append(args, "--force")
	}
	return c.runClusterVerb(std, "stop", args...)
}

// runsToList are the runs list-runs shows: the workspace's, or with
// --cluster every run the cluster holds.
func (c *ListRunsCmd) runsToList(std cli.Stdio) ([]runs.Metadata, error) {
	if !c.on() {
		return c.list(std.Err)
	}
	cmd, err := c.clusterCommand("list-runs", "--format", "metadata")
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, std.Err
	if err := cmd.Run(); err != nil {
		return nil, cli.ChildExit("delta-cluster list-runs", err)
	}
	var all []runs.Metadata
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m runs.Metadata
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return all, fmt.Errorf("delta-cluster list-runs printed %q: %w", sc.Bytes(), err)
		}
		all = append(all, m)
	}
	if all == nil {
		return nil, nil
	}
	return all, sc.Err()
}

// logThroughCluster pulls the run into a temporary workspace (following
// it with -f) and renders that copy as a local log.
func (c *LogCmd) logThroughCluster(std cli.Stdio) error {
	if c.RunID == "" {
		return cli.Errorf(cli.ExitUsage, "name the run: delta log --run-id ID --cluster URL (see delta list-runs --cluster URL)", "--cluster needs --run-id")
	}
	if c.OTLP {
		return cli.Errorf(cli.ExitUsage, fmt.Sprintf("pull it first: delta pull %s --cluster URL, then delta log --otlp --run-id %s", c.RunID, c.RunID), "--otlp does not work with --cluster")
	}
	tmp, err := os.MkdirTemp("", "delta-log-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	args := []string{c.RunID, "-w", tmp}
	if c.Follow {
		args = append(args, "--follow")
	}
	cmd, err := c.clusterCommand("pull", args...)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = io.Discard, std.Err
	runDir := filepath.Join(tmp, runs.ControlDir, c.RunID)
	if !c.Follow {
		if err := cmd.Run(); err != nil {
			return cli.ChildExit("delta-cluster pull", err)
		}
		return c.render(std, c.RunID, runDir, func(*runFollower) bool { return false })
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start delta-cluster pull: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() { _ = cmd.Process.Kill() }()
	pulled, perr := waitPulled(runDir, done)
	if !pulled {
		return cli.ChildExit("delta-cluster pull", perr)
	}
	var pullErr error
	ended := func(*runFollower) bool {
		select {
		case pullErr = <-done:
			done <- pullErr // seen again by later polls
			return true
		default:
			return false
		}
	}
	if err := c.render(std, c.RunID, runDir, ended); err != nil {
		return err
	}
	return cli.ChildExit("delta-cluster pull", pullErr)
}

// waitPulled waits until the pull wrote the run's metadata.json (a
// follower needs it), or ended without it.
func waitPulled(runDir string, done chan error) (bool, error) {
	for {
		if _, err := os.Stat(filepath.Join(runDir, runs.MetadataFile)); err == nil {
			return true, nil
		}
		select {
		case err := <-done:
			if _, serr := os.Stat(filepath.Join(runDir, runs.MetadataFile)); serr == nil {
				done <- err
				return true, nil
			}
			if err == nil {
				err = errors.New("the cluster holds no metadata.json of the run")
			}
			return false, err
		case <-time.After(followPoll):
		}
	}
}
