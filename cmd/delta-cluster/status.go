package main

import "errors"

// StatusCmd is a placeholder its owner replaces.
type StatusCmd struct{}

// Run says the verb is not built yet.
func (c *StatusCmd) Run() error { return errors.New("not built yet") }
