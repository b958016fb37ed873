package main

import (
	"fmt"
	"os"

	"github.com/deltakit/delta/lib/agent"
	"github.com/deltakit/delta/lib/cli"
	"github.com/deltakit/delta/lib/runs"
)

// userConfig reads the user's config.yaml (agent.UserConfigPath) and sets
// its env: variables the environment does not have, so that they reach
// the provider, the tools and child runs as if exported. nil without a
// file; a broken file is a configuration error naming file:line.
func userConfig() (*agent.UserConfig, error) {
	u, err := agent.ReadUserConfig(agent.UserConfigPath())
	if err != nil {
		return nil, cli.WithCode(runs.ExitConfig, agent.HintOf(err), fmt.Errorf("user config: %w", err))
	}
	if u == nil {
		return nil, nil
	}
	for k, v := range u.Env {
		if _, set := os.LookupEnv(k); !set {
			if err := os.Setenv(k, v); err != nil {
				return nil, cli.WithCode(runs.ExitConfig, "", fmt.Errorf("user config %s: env %s: %w", u.Path, k, err))
			}
		}
	}
	return u, nil
}
