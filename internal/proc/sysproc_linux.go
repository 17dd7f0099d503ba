package proc

import (
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"unsafe"
)

// isolations are the isolations Start tries on Linux, strongest first: a
// PID namespace needs CAP_SYS_ADMIN, or a user namespace around it, which
// some systems refuse (a sysctl, a container's seccomp filter, AppArmor);
// a subreaper needs /proc/self/exe to re-execute the harness.
func isolations() []isolation {
	if os.Geteuid() == 0 {
		return []isolation{pidNamespace, userNamespace, reaper, direct}
	}
	return []isolation{userNamespace, reaper, direct}
}

// command returns the command that runs argv (its program at path) under
// mode: the program itself in a process group of its own, or the
// harness's program, re-executed as its supervisor (see supervise). Every one of them is killed by the kernel if
// the harness dies first (a panic, a second Ctrl-C, SIGKILL) — the
// supervisor in reaper mode is told with SIGTERM instead, which it
// catches to kill its tree first.
func command(mode isolation, path string, argv []string) *exec.Cmd {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if mode == direct {
		return &exec.Cmd{Path: path, Args: argv, SysProcAttr: attr}
	}
	// /proc/self/exe, not os.Executable: it is the running program even
	// if its file was since replaced or removed (go run's). The command
	// goes in the environment, not the arguments, so that only the command
	// itself shows it to whoever looks for it in the process list.
	job, _ := json.Marshal(supervised{Path: path, Argv: argv})
	cmd := &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        []string{superviseName},
		Env:         append(os.Environ(), superviseEnv+"="+string(job)),
		SysProcAttr: attr,
	}
	switch mode {
	case reaper:
		attr.Pdeathsig = syscall.SIGTERM
	case pidNamespace:
		attr.Cloneflags = syscall.CLONE_NEWPID
	case userNamespace:
		attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	}
	return cmd
}

// unread returns how many bytes wait unread in the pipe fd reads from.
func unread(fd uintptr) int {
	var n int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
		return 0
	}
	return int(n)
}

// pPID is P_PID, for waitid(2): wait for the one process given.
const pPID = 1

// waitExited blocks until the process pid has exited, without reaping it:
// until it is reaped, its number (its process group's) cannot be reused.
// It reports whether it could; the caller then reaps the process.
func waitExited(pid int) bool {
	var info [128]byte // a siginfo_t, of which nothing is read
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info)), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if e != syscall.EINTR {
			return e == 0
		}
	}
}
