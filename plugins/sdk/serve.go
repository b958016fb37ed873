package sdk

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"

	"github.com/deltakit/delta/plugins/internal/wire"
	"github.com/deltakit/delta/plugins/proto"
)

// ErrNotLaunchedByHost is returned by Serve when the binary was run by hand
// rather than started by Delta.
var ErrNotLaunchedByHost = errors.New("this is a Delta plugin: it is started by delta-run, not run by hand")

// ErrNothingToServe is returned by Serve when Plugin has neither Tools nor
// Hooks.
var ErrNothingToServe = errors.New("plugin serves neither tools nor hooks")

// Serve runs the plugin until the host stops it. It returns an error only
// when the plugin cannot serve at all; main prints it and exits non-zero:
//
//	func main() {
//		if err := sdk.Serve(sdk.Plugin{Tools: myTools{}}); err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
func Serve(p Plugin) error {
	if p.Tools == nil && p.Hooks == nil {
		return ErrNothingToServe
	}
	if os.Getenv(proto.MagicCookieKey) != proto.MagicCookieValue {
		return ErrNotLaunchedByHost
	}
	watchParent()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake,
		Plugins:         pluginSet(p),
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger: hclog.New(&hclog.LoggerOptions{
			Output: os.Stderr,
			Level:  hclog.Warn,
		}),
	})
	return nil
}

// pluginSet is the go-plugin set that serves p.
func pluginSet(p Plugin) plugin.PluginSet {
	set := plugin.PluginSet{}
	if p.Tools != nil {
		set[proto.ToolsPlugin] = &wire.ToolsPlugin{Impl: &toolServer{p: p.Tools, version: p.Version}}
	}
	if p.Hooks != nil {
		set[proto.HooksPlugin] = &wire.HooksPlugin{Impl: &hookServer{p: p.Hooks}}
	}
	return set
}

// watchParent ends the plugin, and every process it started, when its
// host died without stopping it: on the SIGTERM the host asks the kernel
// to send when it dies (Pdeathsig), or when the plugin was re-parented
// (getppid changed) — a second line of defence, as the kernel ties
// Pdeathsig to the host's thread rather than its process.
func watchParent() {
	ppid := os.Getppid()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	go func() {
		tick := time.NewTicker(250 * time.Millisecond)
		for {
			select {
			case <-term:
				endGroup()
			case <-tick.C:
				if os.Getppid() != ppid {
					endGroup()
				}
			}
		}
	}()
}

// endGroup kills the plugin's process group (the host starts each plugin
// as a group leader, so this is the plugin and what it started), or only
// the plugin when it leads no group of its own.
func endGroup() {
	if syscall.Getpgrp() == os.Getpid() {
		_ = syscall.Kill(-os.Getpid(), syscall.SIGKILL)
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
