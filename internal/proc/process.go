package proc

import (
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// stderrWait bounds how long a process's stderr is read after it exited.
const stderrWait = time.Second

// Process is a child process started so that it cannot outlive the
// harness: in a process group of its own, killed as a whole, with a
// parent-death signal where the system has one. It is the machinery under
// the sbxfuzz/1 client and under the MCP client (package mcp). Its methods
// are safe for concurrent use: a watchdog may kill it while a call reads.
type Process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *tail
	exited chan struct{} // closed when the process has been waited for
}

// Start runs argv in dir ("" is the harness's own directory) with stdin
// and stdout piped to the returned Process and the tail of its stderr
// kept (StderrTail bytes).
func Start(argv []string, dir string) (*Process, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("starting a process: an empty command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = sysProcAttr()
	// A descendant that left the process group (setsid) survives the
	// group's kill and may hold stderr open: Wait, and so Kill, must not
	// wait for its EOF forever.
	cmd.WaitDelay = stderrWait
	p := &Process{cmd: cmd, stderr: &tail{n: StderrTail}, exited: make(chan struct{})}
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
	err = cmd.Start()
	stdinR.Close() // the child's ends: ours are closed, so its exit shows as EOF
	stdoutW.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	go func() {
		cmd.Wait()
		stdout.Close()
		close(p.exited)
	}()
	p.stdin, p.stdout = stdin, stdout
	return p, nil
}

// Stdin is the write end of the process's stdin.
func (p *Process) Stdin() io.Writer { return p.stdin }

// Stdout is the read end of the process's stdout; it reads EOF once the
// process (and every process holding its stdout) is gone.
func (p *Process) Stdout() io.Reader { return p.stdout }

// Exited is closed once the process has exited and been waited for.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Pid is the process id, which is also its process group's.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

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
// would otherwise keep its stdout open and the harness waiting.
func (p *Process) Kill() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	p.cmd.Process.Kill()
	p.stdin.Close()
	<-p.exited
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
	return strings.ReplaceAll(s, "\n", " | ")
}
