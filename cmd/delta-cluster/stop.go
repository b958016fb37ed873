package main

import "errors"

// StopCmd is a placeholder its owner replaces.
type StopCmd struct{}

// Run says the verb is not built yet.
func (c *StopCmd) Run() error { return errors.New("not built yet") }
