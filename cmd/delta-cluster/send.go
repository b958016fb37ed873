package main

import "errors"

// SendCmd is a placeholder its owner replaces.
type SendCmd struct{}

// Run says the verb is not built yet.
func (c *SendCmd) Run() error { return errors.New("not built yet") }
