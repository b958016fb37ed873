package workflow

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/deltakit/delta/lib/runs"
	"github.com/deltakit/delta/workflow/board"
)

// The registry is where runners note the instances they drive, one small
// file per instance directory, so that list, stop and the context
// commands find an instance whose directory is not .workflow/NAME of the
// current directory (context.config.dir, --dir), and list --all and stop
// --all find every instance of the user, wherever it lives. It is only an
// index: an entry whose instance directory is gone is ignored and
// removed; the instance's own files stay the truth.

// Registered is one registry entry.
type Registered struct {
	Dir       string    `json:"dir"`
	Workspace string    `json:"workspace"`
	Workflow  string    `json:"workflow"`
	File      string    `json:"file"`
	Instance  string    `json:"instance"`
	Updated   time.Time `json:"updated_at"`
}

// RegistryDir is the registry's folder: $XDG_STATE_HOME/delta/workflows,
// else ~/.local/state/delta/workflows ("" when neither can be found).
func RegistryDir() string {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "delta", "workflows")
}

// registryFile is the entry of the instance directory dir.
func registryFile(reg, dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(reg, hex.EncodeToString(sum[:8])+".json")
}

// Register notes the instance in dir (its state st) in the registry.
func Register(dir string, st *State) error {
	reg := RegistryDir()
	if reg == "" {
		return errors.New("no home directory for the registry of instances (set HOME or XDG_STATE_HOME)")
	}
	return writeJSON(registryFile(reg, dir), Registered{Dir: dir, Workspace: st.Workspace, Workflow: st.Workflow, File: st.File, Instance: st.Instance, Updated: time.Now().UTC()})
}

// RegisteredInstances returns the registered instances that still exist,
// ordered by directory; entries of removed instances are dropped.
func RegisteredInstances() ([]Registered, error) {
	reg := RegistryDir()
	if reg == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(reg)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Registered
	for _, e := range ents {
		if e.IsDir() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		path := filepath.Join(reg, e.Name())
		var r Registered
		if ok, err := readJSON(path, &r); err != nil || !ok || r.Dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(r.Dir, RunnerDir, StateFile)); errors.Is(err, fs.ErrNotExist) {
			os.Remove(path)
			continue
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

// InstancesHere lists the instances of the workspace root: those under
// root/.workflow and those registered as working in root with their
// directory elsewhere.
func InstancesHere(root string) ([]string, error) {
	root = canonical(root)
	dirs, err := Instances(root)
	if err != nil {
		return nil, err
	}
	regs, err := RegisteredInstances()
	if err != nil {
		return dirs, nil
	}
	for _, r := range regs {
		if r.Workspace == root && !contains(dirs, r.Dir) {
			dirs = append(dirs, r.Dir)
		}
	}
	return dirs, nil
}

// AllInstances lists the instances under root/.workflow and every
// registered instance, wherever it lives.
func AllInstances(root string) ([]string, error) {
	root = canonical(root)
	dirs, err := Instances(root)
	if err != nil {
		return nil, err
	}
	regs, err := RegisteredInstances()
	if err != nil {
		return nil, err
	}
	for _, r := range regs {
		if !contains(dirs, r.Dir) {
			dirs = append(dirs, r.Dir)
		}
	}
	return dirs, nil
}

// FindInstance returns the directory of the instance named name of the
// workspace root: root/.workflow/name when it holds an instance, else the
// directory of the one registered under that name for root; "" when none.
func FindInstance(root, name string) string {
	root = canonical(root)
	def := board.InstanceDir(root, name)
	if _, err := os.Stat(filepath.Join(def, RunnerDir, StateFile)); err == nil {
		return def
	}
	regs, _ := RegisteredInstances()
	for _, r := range regs {
		if r.Workspace == root && r.Instance == name {
			return r.Dir
		}
	}
	return ""
}

// canonical is root as runners record workspaces (runs.Canonical), or
// root itself when that fails.
func canonical(root string) string {
	if c, err := runs.Canonical(root); err == nil {
		return c
	}
	return root
}
