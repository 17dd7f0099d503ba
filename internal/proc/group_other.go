//go:build !unix

package proc

import (
	"os"
	"os/exec"
)

// processGroups says the system has no process groups: a child's own
// children could outlive it, so Start refuses (see Supported) and the
// functions below only let the package build.
const processGroups = false

func isolations() []isolation { return []isolation{direct} }

func command(_ isolation, path string, argv []string) *exec.Cmd {
	return &exec.Cmd{Path: path, Args: argv}
}

func unread(fd uintptr) int { return 0 }

func blockingPipe() (r, w *os.File, err error) { return os.Pipe() }

func killGroup(pgid int) {}

func waitExited(pid int) bool { return false }
