package sdk

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/deltakit/delta/plugins/internal/wire"
)

// ExecWrapper is the agent's exec_wrapper (agent.yaml), which the host
// passes to every plugin it starts: an argv prefix (docker exec -i CTR,
// ssh HOST, bwrap …) that a plugin running commands puts before each
// command's argv, as Delta does for command tools. nil when the agent has
// none.
func ExecWrapper() ([]string, error) {
	v := os.Getenv(wire.ExecWrapperVar)
	if v == "" {
		return nil, nil
	}
	var argv []string
	if err := json.Unmarshal([]byte(v), &argv); err != nil || len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("%s=%q is not a JSON array of the wrapper's words", wire.ExecWrapperVar, v)
	}
	return argv, nil
}
