package main

import "errors"

// ServeCmd is a placeholder its owner replaces.
type ServeCmd struct{}

// Run says the verb is not built yet.
func (c *ServeCmd) Run() error { return errors.New("not built yet") }
