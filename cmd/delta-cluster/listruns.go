package main

import "errors"

// ListRunsCmd is a placeholder its owner replaces.
type ListRunsCmd struct{}

// Run says the verb is not built yet.
func (c *ListRunsCmd) Run() error { return errors.New("not built yet") }
