package netns

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Sandbox is a command running in a namespace of its own, and the
// listeners that answer it. Its methods are safe for concurrent use.
type Sandbox struct {
	cmd       *exec.Cmd
	stdout    *head
	stderr    *headTail
	etc       string
	net       *listeners
	done      chan struct{} // closed once the command was waited for
	result    Result
	closeOnce sync.Once
	timerMu   sync.Mutex
	timer     *time.Timer // under timerMu
	waited    bool        // the command was waited for; under timerMu
	timedOut  atomic.Bool
	ctl       *control // asks the namespace's init for sockets (Dial)
	closed    atomic.Bool
}

// Start runs c in new user, network, mount and PID namespaces answered by
// n. The error wraps ErrUnavailable if this machine cannot make them. The
// caller must Close the Sandbox.
func Start(c Command, n Network) (*Sandbox, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("netns: no command")
	}
	path, err := exec.LookPath(c.Argv[0])
	if err != nil {
		return nil, err
	}
	etc, err := writeEtc()
	if err != nil {
		return nil, err
	}
	s := &Sandbox{etc: etc, done: make(chan struct{})}
	if err := s.start(path, c, n); err != nil {
		os.RemoveAll(etc)
		return nil, err
	}
	return s, nil
}

// Run runs c to its end (or its Timeout) in a namespace answered by n,
// and returns how it ended and what it connected to.
func Run(c Command, n Network) (Result, []Record, error) {
	s, err := Start(c, n)
	if err != nil {
		return Result{}, nil, err
	}
	r := s.Wait()
	s.Close()
	return r, s.Records(), nil
}

// Supported says whether this machine can make the namespaces: nil, or an
// error that wraps ErrUnavailable with the reason.
func Supported() error {
	_, _, err := Run(Command{Argv: []string{"/proc/self/exe"}, Env: []string{probeEnv + "=1"}}, Network{})
	if errors.Is(err, ErrUnavailable) {
		return err
	}
	return nil
}

// etcPrefix starts the name of the directory writeEtc makes (TempDir).
const etcPrefix = "sbxfuzz-netns-"

// writeEtc writes, in a new directory, the files mounted over /etc's:
// every name is asked of the namespace's DNS server, and of nothing else.
// Close removes it; a process killed before (SIGKILL) leaves it, and the
// next process to write one removes it (TempDir).
func writeEtc() (string, error) {
	dir, err := TempDir(etcPrefix)
	if err != nil {
		return "", err
	}
	files := map[string]string{
		"resolv.conf":   "nameserver 127.0.0.1\n",
		"hosts":         "# every name is asked of the harness's DNS server\n",
		"nsswitch.conf": "hosts: dns\n",
	}
	for _, name := range etcFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(files[name]), 0o644); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// alive reports whether process pid may still run: a directory of its
// is removed only once the system says there is no such process.
func alive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func (s *Sandbox) start(path string, c Command, n Network) error {
	parent, child, err := socketPair()
	if err != nil {
		return err
	}
	defer parent.Close()
	s.cmd = s.command(path, c, n)
	s.cmd.ExtraFiles = []*os.File{child}
	err = s.cmd.Start()
	child.Close()
	if err != nil {
		return fmt.Errorf("%w: %v%s", ErrUnavailable, err, why(err))
	}
	go s.wait()
	// The setup is bounded apart from the command's Timeout: a helper that
	// stalls before it reports would leave the reads below waiting.
	setup := time.AfterFunc(setupWait, s.kill)
	files, err := receiveFiles(parent, s.stderr)
	if err == nil {
		err = commandStarted(parent, s.stderr)
	}
	if !setup.Stop() {
		err = fmt.Errorf("%w: its setup did not finish within %v", ErrUnavailable, setupWait)
	}
	if err == nil {
		s.armTimer(c.timeout())
		s.ctl, err = newControl(parent)
	}
	if err != nil {
		closeAll(files)
		s.kill()
		<-s.done
		return err
	}
	s.net, err = serve(files, n)
	if err != nil {
		s.ctl.close()
		s.kill()
		<-s.done
	}
	return err
}

// command is the helper that sets the namespaces up and runs c as the
// init of its PID namespace. It is
// root in its user namespace (so that it may configure the network and
// mount), which is the host's user running it, and nobody else.
func (s *Sandbox) command(path string, c Command, n Network) *exec.Cmd {
	env := c.Env
	if env == nil {
		env = environWithout(helperEnv)
	}
	spec, _ := json.Marshal(job{Path: path, Argv: c.Argv, Env: env, Dir: c.Dir, Ports: n.Ports, Etc: s.etc})
	s.stdout, s.stderr = &head{n: c.maxOutput()}, newHeadTail(c.maxOutput())
	cmd := &exec.Cmd{
		Path:   "/proc/self/exe",
		Args:   []string{helperName},
		Env:    append(environWithout(helperEnv), helperEnv+"="+string(spec)),
		Stdout: s.stdout,
		Stderr: s.stderr,
		// The command's output pipes close when the namespace dies; this
		// only bounds a kernel that is slow to tear it down.
		WaitDelay: 5 * time.Second,
		SysProcAttr: &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
			Setpgid:     true,
			Pdeathsig:   syscall.SIGKILL,
		},
	}
	if c.Stdin != nil {
		cmd.Stdin = c.Stdin
	}
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	if c.Stderr != nil {
		cmd.Stderr = c.Stderr
	}
	return cmd
}

// socketPair returns the two ends of a Unix socket that keeps message
// boundaries, the harness's and the helper's.
func socketPair() (parent, child *os.File, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "netns"), os.NewFile(uintptr(fds[1]), "netns-helper"), nil
}

// receiveFiles reads the helper's first message: "ok" and its sockets, or
// why it could not set the namespace up (then namespaces are what is
// unavailable: a sandboxed container may refuse mounts or netlink).
func receiveFiles(parent *os.File, stderr *headTail) ([]*os.File, error) {
	buf, oob := make([]byte, 4096), make([]byte, 4096)
	n, oobn, _, _, err := syscall.Recvmsg(int(parent.Fd()), buf, oob, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: its helper exited: %s", ErrUnavailable, oneLine(stderr.String()))
	}
	if string(buf[:n]) != "ok" {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, oneLine(string(buf[:n])))
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("netns: the helper sent no sockets")
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil {
		return nil, err
	}
	files := make([]*os.File, len(fds))
	for i, fd := range fds {
		syscall.CloseOnExec(fd)
		files[i] = os.NewFile(uintptr(fd), "netns-socket")
	}
	return files, nil
}

// commandStarted waits for the helper to say it started the command
// ("+"), or why it could not.
func commandStarted(parent *os.File, stderr *headTail) error {
	buf := make([]byte, 4096)
	n, _, _, _, err := syscall.Recvmsg(int(parent.Fd()), buf, nil, 0)
	switch {
	case err != nil:
		return err
	case n == 0:
		return fmt.Errorf("netns: its helper exited before starting the command: %s", oneLine(stderr.String()))
	case string(buf[:n]) != "+":
		return errors.New(oneLine(string(buf[:n])))
	}
	return nil
}

// wait waits for the command and keeps how it ended.
func (s *Sandbox) wait() {
	err := s.cmd.Wait()
	s.disarmTimer()
	r := Result{ExitCode: exitCode(s.cmd.ProcessState, err), TimedOut: s.timedOut.Load()}
	r.Stdout, r.Stderr = s.stdout.String(), s.stderr.String()
	r.Truncated = s.stdout.cut() || s.stderr.cut()
	s.result = r
	close(s.done)
}

// setupWait bounds the namespace's setup, up to the helper's word that
// the command started: far longer than a busy machine takes, so that only
// a helper that is stuck meets it.
var setupWait = time.Minute

// armTimer starts the command's Timeout d (none if d is zero) once the
// command runs: the namespace's setup, slow on a busy machine, is not the
// command's time, and a helper killed during it would read as namespaces
// being unavailable.
func (s *Sandbox) armTimer(d time.Duration) {
	if d <= 0 {
		return
	}
	s.timerMu.Lock()
	defer s.timerMu.Unlock()
	if s.waited {
		return // it has ended already
	}
	s.timer = time.AfterFunc(d, s.timeOut)
}

// disarmTimer stops the Timeout, once the command was waited for, and
// keeps a later armTimer from starting it.
func (s *Sandbox) disarmTimer() {
	s.timerMu.Lock()
	defer s.timerMu.Unlock()
	s.waited = true
	if s.timer != nil {
		s.timer.Stop()
	}
}

// timeOut kills the command for running past its Timeout.
func (s *Sandbox) timeOut() {
	s.timedOut.Store(true)
	s.kill()
}

// kill kills the helper's process group; the helper is the init of its
// PID namespace, so the kernel kills every process in the namespace with
// it, whatever group or session they moved to.
func (s *Sandbox) kill() {
	select {
	case <-s.done:
		return // reaped: its pid may be another's by now
	default:
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

// Wait waits for the command to end, or to be killed at its Timeout, and
// returns how it ended.
func (s *Sandbox) Wait() Result {
	<-s.done
	return s.result
}

// Pid is the process id, in the harness's PID namespace, of the
// namespace's init (the command's parent), which is also the id of its
// process group.
func (s *Sandbox) Pid() int { return s.cmd.Process.Pid }

// Records returns the connections and requests so far (since the last
// TakeRecords), in the order they were accepted and read: every connection the command completed before
// the call is among them, even one it never wrote to (its requests may
// not be, if it is still sending them). Connections that waited at the
// same time on different listening sockets (another port or family) are
// in the order of the sockets, for the kernel does not tell which came
// first; on one socket, and for a command that waits for each answer,
// the order is the command's. The slice is shared with later calls, which
// never change its elements: the caller must not change them either.
func (s *Sandbox) Records() []Record {
	if s.net == nil {
		return nil
	}
	s.net.sync()
	return s.net.snapshot()
}

// TakeRecords returns the records Records would return, and forgets
// them: a later Records or TakeRecords returns only what came after. A
// door that reads the records after every op takes them, so that a
// namespace serving a whole campaign holds only one op's.
func (s *Sandbox) TakeRecords() []Record {
	if s.net == nil {
		return nil
	}
	s.net.sync()
	return s.net.take()
}

// Close kills the command and everything it started, waits for them,
// closes the listeners and removes the files it mounted. It returns nil;
// calling it again does nothing.
func (s *Sandbox) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.kill()
		<-s.done
		if s.ctl != nil {
			s.ctl.close() // after the kill: the init exits on its end closing
		}
		if s.net != nil {
			s.net.close()
		}
		os.RemoveAll(s.etc)
	})
	return nil
}

// why explains the errors the kernel gives for a user namespace it will
// not make, whose words mislead.
func why(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return " (the limit of user namespaces is reached: user.max_user_namespaces)"
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return " (unprivileged user namespaces are disabled: kernel.unprivileged_userns_clone, " +
			"kernel.apparmor_restrict_unprivileged_userns, or a container's seccomp profile)"
	}
	return ""
}

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func environWithout(name string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	return env
}

// oneLine is s on one line, as an error quotes a child's words.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
