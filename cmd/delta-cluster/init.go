package main

import "errors"

// InitCmd is a placeholder its owner replaces.
type InitCmd struct{}

// Run says the verb is not built yet.
func (c *InitCmd) Run() error { return errors.New("not built yet") }
