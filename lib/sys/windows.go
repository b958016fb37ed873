//go:build windows

package sys

// Delta runs on Linux and macOS. On Windows, run it inside WSL (the
// Windows Subsystem for Linux), where it builds and works as on Linux.
var _ = Delta_does_not_support_Windows__build_it_for_Linux_and_run_it_in_WSL
