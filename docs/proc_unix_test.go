//go:build unix

package docs

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own and has its
// cancellation kill the whole group, so that nothing a documented command
// started outlives it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
