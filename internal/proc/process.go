package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/inert"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
)

// stderrWait bounds how long a process's stderr is read after it exited,
// and how long a supervisor may take to kill its tree when told to.
const stderrWait = time.Second

// superviseWait bounds how long Start waits for a supervisor to report
// that it started the command: a fork and an exec, so only a broken
// machine reaches it.
const superviseWait = 10 * time.Second

// Process is a child process started so that it cannot outlive the
// harness, nor can anything it starts: in a process group of its own,
// killed as a whole, and on Linux under a supervisor that takes the whole
// tree with it, setsid() descendants included (see isolation). It is the
// machinery under the sbxfuzz/1 client and under the MCP client (package
// mcp). Its methods are safe for concurrent use: a watchdog may kill it
// while a call reads.
type Process struct {
	cmd    *exec.Cmd      // nil for one in a network namespace (ns)
	ns     *netns.Sandbox // its namespace, for one StartNet started
	mode   isolation
	stdin  io.WriteCloser
	stdout *os.File
	out    syscall.RawConn // stdout's, to count what waits in it unread
	stderr *tail
	exited chan struct{} // closed when the process has been waited for
	status string        // how it ended ("exit status 1"), set before exited is closed

	// groupMu orders Kill's kill of the process group before the reap
	// that frees the group's number for another process; groupGone says
	// the group was killed as the process exited, and its number must
	// not be signalled again.
	groupMu   sync.Mutex
	groupGone bool
	groupKill func(pgid int) // killGroup, or groupKillOverride
}

// groupKillOverride, when set, replaces killGroup for the processes
// started meanwhile: for the tests of when a process's group is killed.
var groupKillOverride func(pgid int)

// Start runs argv in dir ("" is the harness's own directory) with stdin
// and stdout piped to the returned Process and the tail of its stderr
// kept (StderrTail bytes). Where the system has no process groups it
// returns Supported's error.
func Start(argv []string, dir string) (*Process, error) { return StartEnv(argv, dir, nil) }

// StartEnv is Start with env ("KEY=value" each) added to the harness's
// own environment, overriding it.
func StartEnv(argv []string, dir string, env []string) (*Process, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("starting a process: an empty command")
	}
	if err := Supported(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	// Resolved here, as exec would, so that a command that is not on
	// $PATH is this call's error whatever runs it.
	resolved := exec.Command(argv[0])
	if resolved.Err != nil {
		return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), resolved.Err)
	}
	var err error
	for _, mode := range isolationOrder() {
		var p *Process
		if p, err = launch(mode, resolved.Path, argv, dir, env); !errors.Is(err, errUnavailable) {
			if err != nil {
				return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
			}
			return p, nil
		}
	}
	return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
}

// errUnavailable marks a failure to start a supervisor the system does not
// allow (no user namespaces, say): Start falls back to the next isolation.
var errUnavailable = errors.New("this isolation is not available here")

// launch starts argv (its program at path) under mode.
func launch(mode isolation, path string, argv []string, dir string, env []string) (*Process, error) {
	cmd := command(mode, path, argv)
	cmd.Dir = dir
	if len(env) > 0 {
		// A supervisor passes its own environment on to the command.
		base := cmd.Env
		if base == nil {
			base = os.Environ()
		}
		cmd.Env = append(base, env...)
	}
	// A descendant that left the process group (setsid) may hold stderr
	// open where nothing kills it: Wait, and so Kill, must not wait for
	// its EOF forever.
	cmd.WaitDelay = stderrWait
	p := &Process{cmd: cmd, mode: mode, stderr: &tail{n: StderrTail}, exited: make(chan struct{}), groupKill: killGroup}
	if groupKillOverride != nil {
		p.groupKill = groupKillOverride
	}
	cmd.Stderr = p.stderr
	// Blocking pipes of our own, not exec's: a read or write then blocks
	// its thread in the kernel and wakes as soon as the child answers,
	// instead of going through the runtime's poller, which costs each of
	// the thousands of round trips a second a campaign makes.
	stdinR, stdin, err := blockingPipe()
	if err != nil {
		return nil, err
	}
	stdout, stdoutW, err := blockingPipe()
	if err != nil {
		stdinR.Close()
		stdin.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = stdinR, stdoutW
	var status *os.File // the supervisor's report: see supervise
	if mode != direct {
		var w *os.File
		if status, w, err = os.Pipe(); err != nil {
			stdinR.Close()
			stdin.Close()
			stdout.Close()
			stdoutW.Close()
			return nil, err
		}
		defer status.Close()
		cmd.ExtraFiles = []*os.File{w}
	}
	err = cmd.Start()
	stdinR.Close() // the child's ends: ours are closed, so its exit shows as EOF
	stdoutW.Close()
	if status != nil {
		cmd.ExtraFiles[0].Close() // the supervisor's: its exit shows as EOF
	}
	if err != nil {
		stdin.Close()
		stdout.Close()
		if mode != direct {
			return nil, fmt.Errorf("%w: %s: %v", errUnavailable, mode, err)
		}
		return nil, err
	}
	go p.wait()
	p.stdin, p.stdout = stdin, stdout
	p.out, _ = stdout.SyscallConn()
	if status != nil {
		if err := p.started(status); err != nil {
			p.Kill()
			return nil, err
		}
	}
	return p, nil
}

// wait waits for the process and keeps how it ended. What is left of its
// group is killed as it exits, while the process, not yet reaped, keeps
// the group's number from being reused: once it is reaped and the group
// empty, the number may be another process group's, which a kill of it
// would take instead.
func (p *Process) wait() {
	pid := p.cmd.Process.Pid
	zombie := waitExited(pid)
	if zombie {
		p.endGroup()
	}
	p.cmd.Wait()
	if !zombie {
		// Where the exit cannot be awaited without reaping (see
		// waitExited), the group goes right after the reap: its number is
		// free again only once the group is empty too.
		p.endGroup()
	}
	p.status = p.cmd.ProcessState.String()
	close(p.exited)
}

// endGroup kills what is left of the process's group as the process
// exits, and marks the group gone so that Kill never signals its number
// again.
func (p *Process) endGroup() {
	p.groupMu.Lock()
	defer p.groupMu.Unlock()
	p.groupKill(p.cmd.Process.Pid)
	p.groupGone = true
}

// killLiveGroup kills the process's group unless endGroup did already:
// the process may have been reaped since, and the number be another's.
func (p *Process) killLiveGroup() {
	p.groupMu.Lock()
	defer p.groupMu.Unlock()
	if !p.groupGone {
		p.groupKill(p.cmd.Process.Pid)
	}
}

// started reads the supervisor's report: "+" once the command runs, else
// why it could not be started.
func (p *Process) started(status *os.File) error {
	status.SetReadDeadline(time.Now().Add(superviseWait))
	b, err := io.ReadAll(io.LimitReader(status, 4096))
	switch {
	case string(b) == "+":
		return nil
	case len(b) > 0:
		return errors.New(string(b))
	case err != nil:
		return fmt.Errorf("its supervisor did not report: %v", err)
	}
	return p.WithStderr(errors.New("its supervisor exited before starting it"))
}

// Stdin is the write end of the process's stdin.
func (p *Process) Stdin() io.Writer { return p.stdin }

// Stdout is the read end of the process's stdout; it reads EOF once the
// process (and every process holding its stdout) is gone, and what the
// process wrote before until Kill closes it.
func (p *Process) Stdout() io.Reader { return p.stdout }

// pendingOutput reports whether bytes the process wrote to its stdout wait
// in the pipe, unread; it never blocks.
func (p *Process) pendingOutput() bool {
	if p.out == nil {
		return false
	}
	n := 0
	p.out.Control(func(fd uintptr) { n = unread(fd) })
	return n > 0
}

// Exited is closed once the process has exited and been waited for.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Namespace is the network namespace the process runs in (StartNet's),
// or nil.
func (p *Process) Namespace() *netns.Sandbox { return p.ns }

// Pid is the id of the process the harness started, which is also its
// process group's: the command's, or its supervisor's.
func (p *Process) Pid() int {
	if p.ns != nil {
		return p.ns.Pid()
	}
	return p.cmd.Process.Pid
}

// Stderr returns the tail of what the process wrote to its stderr.
func (p *Process) Stderr() string { return p.stderr.String() }

// WithStderr returns err with the tail of the process's stderr folded onto
// one line, for a finding: the child's own words on why it failed.
func (p *Process) WithStderr(err error) error {
	if t := strings.TrimSpace(p.Stderr()); t != "" {
		return fmt.Errorf("%w; its stderr ends: %s", err, oneLine(t))
	}
	return err
}

// Kill kills the process group and waits for the process. Killing the
// group, not the process, also takes the children it started, which
// would otherwise keep its stdout open and the harness waiting; under a
// supervisor it takes the whole tree (see isolation); in a network
// namespace (StartNet), the namespace and everything in it, and it closes
// the namespace's Sandbox. A process that exited already had its group
// killed as it exited, and its number is not signalled again.
//
// Stdout stays readable until then: a process that wrote its last words
// and exited at once keeps them for its reader, where closing its stdout
// when it exited lost them to a read not made yet.
func (p *Process) Kill() {
	defer p.stdout.Close()
	if p.ns != nil {
		p.ns.Close() // kills its init, and with it the namespace
		p.stdin.Close()
		<-p.exited
		return
	}
	if p.mode == reaper {
		// A SIGKILL would take the supervisor before it could kill the
		// descendants that left the group: SIGTERM has it kill them all
		// and exit. The group's kill below is for one that cannot.
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(stderrWait):
		}
	}
	p.killLiveGroup()
	p.cmd.Process.Kill()
	p.stdin.Close()
	<-p.exited
}

// exitWait bounds how long Ended waits for a process whose stdout closed
// (or whose stdin broke) to exit: one that closed them and runs on is
// killed all the same, its status unknown.
const exitWait = time.Second

// Ended says how the process ended, as " (exit status 1)", for the words
// of a failure once its stdout closed or its stdin broke: a server that
// exits without a word on stderr (a Go program returning from main on a
// read error) is told from one that crashed. It waits up to exitWait for
// the exit, and is "" for a process that runs on.
func (p *Process) Ended() string {
	select {
	case <-p.exited:
	case <-time.After(exitWait):
		return ""
	}
	if p.status == "" {
		return ""
	}
	return " (" + p.status + ")"
}

// Stop closes the process's stdin, which well-behaved stdio servers take
// as the end, waits up to wait for it to exit, then kills its group
// whatever it did, so nothing it started is left running.
func (p *Process) Stop(wait time.Duration) {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(wait):
	}
	p.Kill()
}

// oneLine folds a stderr tail onto one line for a finding.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r", "")
	// The child's words end up on a terminal and in a finding's header:
	// its other control bytes, and bytes that are no UTF-8, are written
	// as escapes, so that none moves the cursor or clears the screen.
	return inert.String(strings.ReplaceAll(s, "\n", " | "))
}
