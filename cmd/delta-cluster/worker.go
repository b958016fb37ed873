package main

import "errors"

// WorkerCmd is a placeholder its owner replaces.
type WorkerCmd struct{}

// Run says the verb is not built yet.
func (c *WorkerCmd) Run() error { return errors.New("not built yet") }
