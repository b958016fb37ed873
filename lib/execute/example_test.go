package execute_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/execute"
)

func ExampleRun() {
	res, err := execute.Run(context.Background(), execute.Spec{
		Argv:    []string{"sh", "-c", `echo "hello $1"; exit 2`, "--", "world"},
		Env:     agent.FilterEnv(os.Environ(), agent.EnvConfig{}),
		Timeout: 10 * time.Second,
	})
	if err != nil {
		fmt.Println("could not start:", err)
		return
	}
	fmt.Printf("exit %d: %s", res.ExitCode, res.Stdout)
	// Output: exit 2: hello world
}
