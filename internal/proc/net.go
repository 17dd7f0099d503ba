package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/netns"
)

// StartNet is StartEnv in a network of its own answered by n (package
// netns, SPEC §14): new user, network, mount and PID namespaces where
// every address is local, so that every connection the process makes
// reaches n's listeners and is among the Sandbox's Records. The Process
// keeps Start's guarantees: it runs under the namespace's init, which the
// kernel kills when the harness dies and whose death kills every process
// in the namespace; Kill (or Stop) kills it and closes the Sandbox, which
// the caller must not close before. The error wraps netns.ErrUnavailable
// where this machine cannot make the namespaces.
func StartNet(argv []string, dir string, env []string, n netns.Network) (*Process, *netns.Sandbox, error) {
	if len(argv) == 0 {
		return nil, nil, fmt.Errorf("starting a process: an empty command")
	}
	if err := Supported(); err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	resolved := exec.Command(argv[0])
	if resolved.Err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), resolved.Err)
	}
	p, err := launchNet(append([]string{resolved.Path}, argv[1:]...), dir, env, n)
	if err != nil {
		return nil, nil, fmt.Errorf("starting %s: %w", strings.Join(argv, " "), err)
	}
	return p, p.ns, nil
}

// launchNet starts argv (argv[0] resolved) in a namespace answered by n,
// with the blocking pipes launch gives a Process.
func launchNet(argv []string, dir string, env []string, n netns.Network) (*Process, error) {
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
	p := &Process{mode: netNamespace, stderr: &tail{n: StderrTail}, exited: make(chan struct{})}
	ns, err := netns.Start(netns.Command{
		Argv: argv, Env: append(os.Environ(), env...), Dir: dir,
		Timeout: -1, // the caller bounds each exchange and kills the process
		Stdin:   stdinR, Stdout: stdoutW, Stderr: p.stderr,
	}, n)
	stdinR.Close() // the child's ends: ours are closed, so its exit shows as EOF
	stdoutW.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, err
	}
	go func() {
		p.status = exitStatus(ns.Wait().ExitCode)
		close(p.exited)
	}()
	p.ns, p.stdin, p.stdout = ns, stdin, stdout
	p.out, _ = stdout.SyscallConn()
	return p, nil
}

// exitStatus is a namespace's exit code as its init reports it, "exit
// status 1", a signal N being 128+N as a shell shows it (as a supervised
// process's status reads too), or "" when it could not be waited for.
func exitStatus(code int) string {
	if code < 0 {
		return ""
	}
	return fmt.Sprintf("exit status %d", code)
}
