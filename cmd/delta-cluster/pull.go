package main

import "errors"

// PullCmd is a placeholder its owner replaces.
type PullCmd struct{}

// Run says the verb is not built yet.
func (c *PullCmd) Run() error { return errors.New("not built yet") }
