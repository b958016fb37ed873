package pty

import (
	"fmt"
	"os/exec"
)

func execLookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("find %s: %w", name, err)
	}
	return p, nil
}
