package engine

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deltakit/delta/lib/llm"
)

// Run directory layout (seeds/000 §1.2).
const (
	ControlDir   = ".delta"
	LayoutFile   = "VERSION"
	Layout       = "1.10"
	MetadataFile = "metadata.json"
	JournalFile  = "journal.jsonl"
	EngineLog    = "engine.log"
	lockFile     = ".lock"
)

// Sentinel errors of run management.
var (
	ErrRunExists     = errors.New("run already exists")
	ErrNoRun         = errors.New("no such run")
	ErrInvalidRunID  = errors.New("invalid run id")
	ErrStillRunning  = errors.New("run is still active")
	ErrOtherHost     = errors.New("run was started on another host")
	ErrLocked        = errors.New("run is being continued by another process")
	runIDPattern     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	workspacePattern = regexp.MustCompile(`^W(\d{3,})$`)
)

// Metadata is metadata.json (seeds/000 §2.1.4) plus token usage totals.
type Metadata struct {
	RunID          string               `json:"run_id"`
	WorkspaceID    string               `json:"workspace_id"`
	AgentName      string               `json:"agent_name"`
	Status         string               `json:"status"`
	CreatedAt      time.Time            `json:"created_at"`
	UpdatedAt      time.Time            `json:"updated_at"`
	EndTime        *time.Time           `json:"end_time"`
	InitialMessage string               `json:"initial_message"`
	Iterations     int                  `json:"iterations"`
	MaxIterations  int                  `json:"max_iterations"`
	Error          *string              `json:"error"`
	AgentHome      string               `json:"agent_home"`
	WorkDir        string               `json:"work_dir"`
	PID            int                  `json:"pid"`
	Hostname       string               `json:"hostname"`
	StartTimeUnix  int64                `json:"start_time_unix"`
	ProcessName    string               `json:"process_name"`
	Usage          llm.Usage            `json:"usage"`
	ModelUsage     map[string]llm.Usage `json:"model_usage,omitempty"`
}

// NewRunID returns a default run ID: YYYYMMDD_HHMMSS_<6 hex>.
func NewRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102_150405") + "_" + hex.EncodeToString(b[:])
}

// ValidateRunID checks a client-supplied run ID.
func ValidateRunID(id string) error {
	if !runIDPattern.MatchString(id) {
		return fmt.Errorf("%w %q: use 1-128 characters of letters, digits, '.', '_' and '-', starting with a letter or digit", ErrInvalidRunID, id)
	}
	return nil
}

// RunDir is the directory of run id in workDir.
func RunDir(workDir, id string) string { return filepath.Join(workDir, ControlDir, id) }

// CreateRun reserves run id in workDir atomically (one mkdir): of several
// processes asking for the same ID exactly one succeeds; the others get
// ErrRunExists and touch nothing.
func CreateRun(workDir, id string) (string, error) {
	if err := ValidateRunID(id); err != nil {
		return "", err
	}
	ctl := filepath.Join(workDir, ControlDir)
	if err := os.MkdirAll(ctl, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", ctl, err)
	}
	if _, err := os.Stat(filepath.Join(ctl, LayoutFile)); errors.Is(err, fs.ErrNotExist) {
		_ = writeFileAtomic(filepath.Join(ctl, LayoutFile), []byte(Layout+"\n"))
	}
	dir := filepath.Join(ctl, id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%w: %s in %s", ErrRunExists, id, workDir)
		}
		return "", fmt.Errorf("create run directory: %w", err)
	}
	return dir, nil
}

// WriteMetadata writes metadata.json atomically.
func WriteMetadata(runDir string, m *Metadata) error {
	m.UpdatedAt = time.Now().UTC()
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(runDir, MetadataFile), append(data, '\n')); err != nil {
		return fmt.Errorf("write metadata: %w", err)
	}
	return nil
}

// ReadMetadata reads a run's metadata.json.
func ReadMetadata(runDir string) (*Metadata, error) {
	data, err := os.ReadFile(filepath.Join(runDir, MetadataFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNoRun, runDir)
	}
	if err != nil {
		return nil, fmt.Errorf("read metadata: %w", err)
	}
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse %s: %w", filepath.Join(runDir, MetadataFile), err)
	}
	return &m, nil
}

// ListRuns returns the metadata of every run in workDir, most recently
// updated first. Directories without readable metadata are skipped.
func ListRuns(workDir string) ([]*Metadata, error) {
	entries, err := os.ReadDir(filepath.Join(workDir, ControlDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var out []*Metadata
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		m, err := ReadMetadata(filepath.Join(workDir, ControlDir, e.Name()))
		if err != nil {
			continue
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.After(out[j].UpdatedAt)
		}
		return out[i].RunID > out[j].RunID
	})
	return out, nil
}

// SetProcess records the current process in m (for the janitor).
func SetProcess(m *Metadata) {
	m.PID = os.Getpid()
	m.Hostname, _ = os.Hostname()
	m.StartTimeUnix = time.Now().UnixMilli()
	m.ProcessName = processName(m.PID)
}

// Janitor applies seeds/000 §2.1.5 to a run whose metadata says RUNNING:
// it returns nil after marking it INTERRUPTED when its process is gone,
// ErrOtherHost when it ran elsewhere (unless force), ErrStillRunning when
// the process is alive.
func Janitor(runDir string, m *Metadata, force bool) error {
	if m.Status != StatusRunning {
		return nil
	}
	host, _ := os.Hostname()
	if m.Hostname != host && !force {
		return fmt.Errorf("%w: run %s was started on host '%s'; cannot verify process status from host '%s'", ErrOtherHost, m.RunID, m.Hostname, host)
	}
	if m.Hostname == host && alive(m.PID) {
		if name := processName(m.PID); name != "" && (m.ProcessName == "" || name == m.ProcessName) {
			return fmt.Errorf("%w: run %s is still active (PID %d)", ErrStillRunning, m.RunID, m.PID)
		}
	}
	m.Status = StatusInterrupted
	return WriteMetadata(runDir, m)
}

// alive reports whether pid exists (kill -0).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// processName is the command name of pid from /proc ("" when unknown).
func processName(pid int) string {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// Lock takes an exclusive, non-blocking lock on the run so that two
// processes never drive it at once; the lock dies with the process. Call
// the returned function to release it.
func Lock(runDir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(runDir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("lock run: %w", err)
	}
	return func() { f.Close() }, nil
}

// NextWorkspace creates the next sequential workspace W001, W002 … under
// agentHome/workspaces (atomically: concurrent callers get different ones)
// and records it in LAST_USED.
func NextWorkspace(agentHome string) (string, error) {
	root := filepath.Join(agentHome, "workspaces")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("create workspaces directory: %w", err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", err
	}
	next := 1
	for _, e := range entries {
		if m := workspacePattern.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			if n, _ := strconv.Atoi(m[1]); n >= next {
				next = n + 1
			}
		}
	}
	for ; ; next++ {
		name := fmt.Sprintf("W%03d", next)
		dir := filepath.Join(root, name)
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("create workspace: %w", err)
		}
		_ = writeFileAtomic(filepath.Join(root, "LAST_USED"), []byte(name+"\n"))
		return dir, nil
	}
}

// ListWorkspaces returns the existing workspaces of agentHome (names) and
// the last used one.
func ListWorkspaces(agentHome string) (names []string, last string) {
	root := filepath.Join(agentHome, "workspaces")
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() && workspacePattern.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	data, _ := os.ReadFile(filepath.Join(root, "LAST_USED"))
	return names, strings.TrimSpace(string(data))
}

// UseWorkspace records name as the last used workspace of agentHome.
func UseWorkspace(agentHome, name string) {
	_ = writeFileAtomic(filepath.Join(agentHome, "workspaces", "LAST_USED"), []byte(name+"\n"))
}
