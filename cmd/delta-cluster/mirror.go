package main

import "errors"

// MirrorCmd is a placeholder its owner replaces.
type MirrorCmd struct{}

// Run says the verb is not built yet.
func (c *MirrorCmd) Run() error { return errors.New("not built yet") }
