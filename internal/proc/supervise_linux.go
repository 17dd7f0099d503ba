package proc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// superviseEnv, set in its environment, makes a program that links this
// package a supervisor (see supervise) instead of itself; its value is the
// command to run, a supervised in JSON. superviseName is the supervisor's
// only argument, what ps shows.
const (
	superviseEnv  = "SBXFUZZ_PROC_SUPERVISE"
	superviseName = "sbxfuzz-supervise"
)

// supervised is the command a supervisor runs: its program, resolved, and
// its arguments, argv[0] included.
type supervised struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
}

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER, for prctl(2).
const prSetChildSubreaper = 36

// The supervisor is the harness's own program, re-executed: any program
// that starts children through this package links this init, so it needs
// nothing installed, and it runs before the program's own main — or its
// tests — do anything.
func init() {
	if job, ok := os.LookupEnv(superviseEnv); ok {
		os.Exit(supervise(job))
	}
}

// supervise runs the command job names, reports on fd 3 that it did
// ("+", or why not), and stays until it is done, so that nothing of the
// command's tree outlives it:
//
//   - as the init of a PID namespace (pid 1), it reaps whatever is
//     orphaned in the namespace and exits with the command; its own death,
//     however it comes, has the kernel kill everything in the namespace;
//   - otherwise it makes itself a child subreaper, so that every
//     descendant orphaned below it becomes its child, and it kills them
//     all, over and over until none is left, once the command exited or
//     on SIGTERM (from the harness, or the parent-death signal).
//
// It exits with the command's status, 128+N for a signal N.
func supervise(job string) int {
	status := os.NewFile(3, "status")
	syscall.CloseOnExec(3)
	var cmd supervised
	if err := json.Unmarshal([]byte(job), &cmd); err != nil || len(cmd.Argv) == 0 {
		fmt.Fprintf(status, "its supervisor was given no command: %.80q", job)
		return 127
	}
	nsInit := os.Getpid() == 1 // the init of a PID namespace
	if nsInit {
		// The fork below happens on this thread, in the mount namespace
		// ownProc gives it.
		runtime.LockOSThread()
		ownProc()
	}
	var term chan os.Signal
	if !nsInit {
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
			fmt.Fprintf(status, "its supervisor could not become a child subreaper: %v", e)
			return 127
		}
		term = make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
	}
	child, err := syscall.ForkExec(cmd.Path, cmd.Argv, &syscall.ProcAttr{Env: environWithout(superviseEnv), Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Fprint(status, &os.PathError{Op: "fork/exec", Path: cmd.Path, Err: err}) // as os/exec says it
		return 127
	}
	// Our copies of the command's stdin and stdout would keep the harness
	// from seeing the command close them.
	syscall.Close(0)
	syscall.Close(1)
	_, err = status.Write([]byte("+"))
	status.Close()
	// An error means the harness died before our parent-death signal was
	// set (the kernel cannot tell a namespace's init that its parent died
	// before it asked): nobody will read the command's answers, so the
	// tree goes at once.
	return reap(child, nsInit, term, err != nil)
}

// ownProc gives the calling thread, the init of a PID namespace, a mount
// namespace of its own with a /proc of the PID namespace mounted: the
// host's /proc, inherited, shows the host's processes under pids that mean
// nothing here, and a sandbox that reads its own there (bubblewrap's
// /proc/PID/ns, go-landlock's /proc/PID/task) fails. A system that refuses
// either step leaves the host's, as before.
func ownProc() {
	if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
		return
	}
	// Private, so that the mount below stays in this namespace.
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return
	}
	syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "")
}

// reap reaps every child until none is left (the subreaper) or the command
// has exited (the namespace's init), and returns the command's status. It
// kills the whole tree from the start if closing, else once the command
// exited or on term.
func reap(child int, nsInit bool, term <-chan os.Signal, closing bool) int {
	if closing && nsInit {
		return 1 // the kernel kills the namespace as we go
	}
	var killing atomic.Bool
	killing.Store(closing)
	if closing {
		killTree()
	}
	if term != nil {
		go func() {
			<-term
			killing.Store(true)
			killTree()
		}()
	}
	code := 0
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return code // ECHILD: the whole tree is gone
		case pid == child:
			code = exitCode(ws)
			if nsInit {
				return code // the kernel kills the rest of the namespace as we go
			}
			killing.Store(true)
		}
		// A child that died may have left children of its own: they are
		// ours now, to be killed in turn.
		if killing.Load() {
			killTree()
		}
	}
}

// exitCode is a shell's word for ws: the exit status, or 128+N for a
// signal N.
func exitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// killTree kills every child of the supervisor, and the process group each
// leads (a setsid() descendant's); their own children then become the
// supervisor's, to be killed on the next call.
func killTree() {
	for _, pid := range childrenOf(os.Getpid()) {
		syscall.Kill(-pid, syscall.SIGKILL)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// childrenOf lists the processes whose parent is ppid, from /proc.
func childrenOf(ppid int) []int {
	entries, _ := os.ReadDir("/proc")
	want := strconv.Itoa(ppid)
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold anything, ")" too.
		fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
		if len(fields) > 1 && string(fields[1]) == want {
			out = append(out, pid)
		}
	}
	return out
}

// environWithout is the environment without the variable name.
func environWithout(name string) []string {
	env := os.Environ()
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
