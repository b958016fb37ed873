package runs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/deltakit/delta/lib/atomicfile"
)

// WorkspacesDir and LastUsedFile name an agent's workspace area.
const (
	WorkspacesDir = "workspaces"
	LastUsedFile  = "LAST_USED"
)

// workspaceName is compiled on first use, not at every start.
var workspaceName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^W(\d{3,})$`) })

// NextWorkspace creates the next sequential workspace of the agent
// (workspaces/W001, W002, …), records it in workspaces/LAST_USED and
// returns its path. Each candidate is reserved with one mkdir, so
// concurrent runs always get distinct workspaces.
func NextWorkspace(agentHome string) (string, error) {
	root := filepath.Join(agentHome, WorkspacesDir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("create workspace: %w", err)
	}
	names, err := ListWorkspaces(agentHome)
	if err != nil {
		return "", err
	}
	n := 1
	if len(names) > 0 {
		n, _ = strconv.Atoi(names[len(names)-1][1:])
		n++
	}
	for ; ; n++ {
		name := fmt.Sprintf("W%03d", n)
		dir := filepath.Join(root, name)
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("create workspace: %w", err)
		}
		if err := atomicfile.Write(filepath.Join(root, LastUsedFile), []byte(name+"\n"), 0o644); err != nil {
			return "", fmt.Errorf("record last used workspace: %w", err)
		}
		return dir, nil
	}
}

// LastUsed returns the path of the workspace named in LAST_USED, or "" when
// there is none.
func LastUsed(agentHome string) (string, error) {
	data, err := os.ReadFile(filepath.Join(agentHome, WorkspacesDir, LastUsedFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read last used workspace: %w", err)
	}
	name := strings.TrimSpace(string(data))
	if !workspaceName().MatchString(name) {
		return "", fmt.Errorf("read last used workspace: %q is not a workspace name", name)
	}
	return filepath.Join(agentHome, WorkspacesDir, name), nil
}

// ListWorkspaces returns the agent's sequential workspace names (W001 …)
// in numeric order.
func ListWorkspaces(agentHome string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(agentHome, WorkspacesDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list workspaces: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && workspaceName().MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		x, _ := strconv.Atoi(a[1:])
		y, _ := strconv.Atoi(b[1:])
		return x - y
	})
	return names, nil
}
