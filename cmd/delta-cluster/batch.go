package main

import "errors"

// BatchCmd is a placeholder its owner replaces.
type BatchCmd struct{}

// Run says the verb is not built yet.
func (c *BatchCmd) Run() error { return errors.New("not built yet") }
