//go:build unix && !linux

package proc

import (
	"os/exec"
	"syscall"
)

// isolations is a process group only: the supervisor needs Linux's child
// subreaper or PID namespaces, so a descendant that leaves the group
// (setsid) can outlive the harness here.
func isolations() []isolation { return []isolation{direct} }

// command runs argv (its program at path) in a process group of its own,
// killed as a whole when the harness is done with it.
func command(_ isolation, path string, argv []string) *exec.Cmd {
	return &exec.Cmd{Path: path, Args: argv, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
}

// unread returns 0: without a portable way to ask, only what the reader
// buffered shows a child that wrote out of turn.
func unread(fd uintptr) int { return 0 }

// waitExited reports false: syscall has no waitid here, so the process's
// exit is known only once Wait reaped it.
func waitExited(pid int) bool { return false }
