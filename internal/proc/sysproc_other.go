//go:build unix && !linux

package proc

import "syscall"

// sysProcAttr puts the child in a process group of its own, killed as a
// whole when the harness is done with it.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
