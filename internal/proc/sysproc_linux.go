package proc

import "syscall"

// sysProcAttr puts the child in a process group of its own (killed as a
// whole) and has the kernel kill it if the harness dies first (a panic, a
// second Ctrl-C, SIGKILL).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
