package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/atomicfile"
	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow/board"
)

// Files and folders of an instance directory that belong to the runner
// (the shared context owns the rest: channel, cursors, documents,
// proposals).
const (
	RunnerDir  = "runner"     // the runner's own state
	StateFile  = "state.json" // in RunnerDir
	PIDFile    = "pid.json"   // in RunnerDir, while a runner lives
	LogFile    = "runner.log" // in RunnerDir: a background runner's output
	lockFile   = "lock"       // in RunnerDir: one runner per instance
	AgentsDir  = "agents"     // one folder per agent
	statusFile = "status.json"
	deliveryF  = "delivery.json"
	stopFile   = "stop"
)

// instanceName is the form of an instance name: it becomes a directory
// and part of run ids.
var instanceName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`) })

// ErrBadInstance: an instance name outside the allowed form.
var ErrBadInstance = errors.New("invalid instance name: use 1 to 64 letters, digits, _ or -, starting with a letter or digit")

// ValidateInstance checks an instance name.
func ValidateInstance(name string) error {
	if !instanceName().MatchString(name) {
		return fmt.Errorf("%w (got %q)", ErrBadInstance, name)
	}
	return nil
}

// RunID is the id of agent's Delta run in instance: one long-lived run
// per agent and instance, found again by this id after a restart.
func RunID(agentName, instance string) string { return agentName + "." + instance }

// State is what the runner must remember across a crash: the instance
// exists, its setup ran (and what it captured), the kickoff was posted.
// It is written atomically to runner/state.json.
type State struct {
	Workflow  string            `json:"workflow"`
	File      string            `json:"file"`
	Instance  string            `json:"instance"`
	Workspace string            `json:"workspace"`
	CreatedAt time.Time         `json:"created_at"`
	SetupDone bool              `json:"setup_done"`
	Variables map[string]string `json:"variables,omitempty"`
	// ElectionStarted: the document owner election was asked for (once).
	ElectionStarted bool `json:"election_started,omitempty"`
	// KickoffSeq is the kickoff's channel entry (0: not posted yet).
	KickoffSeq int64 `json:"kickoff_seq,omitempty"`
	// KickoffDone: the kickoff was posted, or there is none.
	KickoffDone bool `json:"kickoff_done"`
	// Cluster is the URL of the cluster that keeps the instance's board
	// ("": its directory does).
	Cluster string `json:"cluster,omitempty"`
}

// ReadState reads an instance's state; a missing file is fs.ErrNotExist.
func ReadState(dir string) (*State, error) {
	data, err := os.ReadFile(filepath.Join(dir, RunnerDir, StateFile))
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("parse %s: %w", filepath.Join(dir, RunnerDir, StateFile), err)
	}
	return &s, nil
}

// writeJSON replaces path with v as JSON, atomically.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

// readJSON reads path into v; false when the file does not exist.
func readJSON(path string, v any) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("parse %s: %w", path, err)
	}
	return true, nil
}

// WriteState saves s in dir.
func WriteState(dir string, s *State) error {
	return writeJSON(filepath.Join(dir, RunnerDir, StateFile), s)
}

// ErrInstanceBusy: another runner drives the instance.
var ErrInstanceBusy = errors.New("instance is already running")

// lockInstance takes the instance's runner lock (a flock the kernel drops
// when the runner dies, even by SIGKILL).
func lockInstance(dir string) (func(), error) {
	if err := os.MkdirAll(filepath.Join(dir, RunnerDir), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, RunnerDir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock instance: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrInstanceBusy
		}
		return nil, fmt.Errorf("lock instance: %w", err)
	}
	return func() { f.Close() }, nil
}

// RunnerPID is runner/pid.json: the live runner's process, identified
// across pid reuse like a run's.
type RunnerPID struct {
	PID        int       `json:"pid"`
	Hostname   string    `json:"hostname"`
	StartTicks uint64    `json:"process_start_ticks"`
	Mode       string    `json:"mode"` // run or start
	StartedAt  time.Time `json:"started_at"`
	// Ready is true once the instance is set up (setup, kickoff) and its
	// agents' controllers run.
	Ready bool `json:"ready"`
}

// meta describes the runner as a run's metadata, so that lib/runs checks
// and signals it exactly as it does a run's process.
func (p *RunnerPID) meta(instance string) *runs.Metadata {
	return &runs.Metadata{RunID: "runner of " + instance, Status: runs.Running, PID: p.PID, Hostname: p.Hostname, ProcessStartTicks: p.StartTicks}
}

// LiveRunner returns the instance's runner process when one is alive on
// this host (nil when none is).
func LiveRunner(dir string) (*RunnerPID, error) {
	var p RunnerPID
	ok, err := readJSON(filepath.Join(dir, RunnerDir, PIDFile), &p)
	if err != nil || !ok {
		return nil, err
	}
	alive, err := runs.Alive(p.meta(dir))
	if err != nil || !alive {
		return nil, err
	}
	return &p, nil
}

// StopRunner asks the instance's runner to stop (SIGTERM: its agents'
// runs are interrupted, to be continued when it starts again) and waits
// up to timeout for it to exit. It reports whether a runner was running.
func StopRunner(dir string, timeout time.Duration) (bool, error) {
	p, err := LiveRunner(dir)
	if err != nil || p == nil {
		return false, err
	}
	proc, err := runs.OpenProcess(p.meta(dir))
	if errors.Is(err, runs.ErrNotRunning) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer proc.Close()
	if err := proc.Signal(syscall.SIGTERM); err != nil {
		return true, err
	}
	done, err := proc.Wait(timeout)
	if err != nil {
		return true, err
	}
	if !done {
		return true, fmt.Errorf("the runner (pid %d) did not stop within %s", p.PID, timeout)
	}
	return true, nil
}

// AgentStatus is agents/<name>/status.json, written by the runner each
// time an agent's state changes, for `delta workflow list`.
type AgentStatus struct {
	Agent   string    `json:"agent"`
	Status  string    `json:"status"`
	RunID   string    `json:"run_id,omitempty"`
	Runs    int       `json:"runs"`
	Error   string    `json:"error,omitempty"`
	Updated time.Time `json:"updated_at"`
}

// ReadAgentStatus reads an agent's last recorded status (nil when none).
func ReadAgentStatus(dir, agentName string) (*AgentStatus, error) {
	var s AgentStatus
	ok, err := readJSON(filepath.Join(dir, AgentsDir, agentName, statusFile), &s)
	if err != nil || !ok {
		return nil, err
	}
	return &s, nil
}

// RequestAgentStop leaves the stop marker of agentName: its controller
// stops (interrupting a run in progress) and takes no more messages until
// the instance is started again.
func RequestAgentStop(dir, agentName string) error {
	return writeJSON(filepath.Join(dir, AgentsDir, agentName, stopFile), map[string]any{"requested_at": time.Now().UTC()})
}

// Instances lists the instance directories under root/.workflow.
func Instances(root string) ([]string, error) {
	base := filepath.Join(root, board.DefaultDir)
	ents, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(base, e.Name(), RunnerDir, StateFile)); err == nil {
				out = append(out, filepath.Join(base, e.Name()))
			}
		}
	}
	return out, nil
}
