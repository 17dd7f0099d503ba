package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runMainEnv makes the test binary run main instead of the tests, so that
// the tests can run the command as a child and see its exit status.
const runMainEnv = "EGRESSPROXY_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// command is the egressproxy command with args and env, as a child.
func command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "EGRESSPROXY_DEFECT=")
	}), append(env, runMainEnv+"=1")...)
	cmd.WaitDelay = time.Second
	return cmd
}

// runCommand runs the command to its end: exit status, stdout and stderr.
func runCommand(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := command(ctx, env, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("egressproxy %q: %v", args, err)
	return 0, "", ""
}

// TestBadInvocations: each is exit status 2 and a message on stderr that
// says what is wrong, before the command listens anywhere.
func TestBadInvocations(t *testing.T) {
	crlf := filepath.Join(t.TempDir(), "hosts-crlf.txt")
	if err := os.WriteFile(crlf, []byte("a.test\r\nb.test\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env    []string
		args   []string
		stderr string
	}{
		{nil, []string{"-listen", "127.0.0.1:0", "-nope"}, "flag provided but not defined: -nope"},
		{nil, []string{"-allow", "a.test"}, "-listen is required"},
		{nil, []string{"-listen", "127.0.0.1:0", "extra"}, `unexpected argument "extra"`},
		{nil, []string{"-listen", "127.0.0.1:0", "-allow-file", filepath.Join(t.TempDir(), "absent")}, "no such file"},
		{nil, []string{"-listen", "127.0.0.1:0", "-allow-file", crlf}, `hosts-crlf.txt:1: host "a.test\r" has white space or a control byte`},
		{[]string{"EGRESSPROXY_DEFECT=cgnta"}, []string{"-listen", "127.0.0.1:0"}, `EGRESSPROXY_DEFECT="cgnta": no such defect (want one of name, twice, cgnat, mapped, suffix, or unset)`},
	} {
		code, stdout, stderr := runCommand(t, c.env, c.args...)
		if code != 2 || !strings.Contains(stderr, c.stderr) || stdout != "" {
			t.Errorf("%v egressproxy %q: exit %d, stdout %q, stderr %q; want exit 2 and %q on stderr", c.env, c.args, code, stdout, stderr, c.stderr)
		}
	}
}

// TestHelp: -help is the usage on stdout, exit status 0.
func TestHelp(t *testing.T) {
	code, stdout, stderr := runCommand(t, nil, "-help")
	if code != 0 || !strings.HasPrefix(stdout, "usage: egressproxy -listen ADDR") || !strings.Contains(stdout, "-allow-file file") || stderr != "" {
		t.Errorf("egressproxy -help: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestServesAndStops runs the command on a loopback port: it refuses an
// ungranted host, granted internal literals and localhost (none needs a
// packet to leave the machine), logs each on stderr and nothing on
// stdout, and exits 0 on SIGTERM.
func TestServesAndStops(t *testing.T) {
	hosts := filepath.Join(t.TempDir(), "hosts.txt")
	if err := os.WriteFile(hosts, []byte("\n[::1]\n\n127.0.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := command(ctx, nil, "-listen", addr, "-allow-file", hosts, "-allow", "a.test,,localhost")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	for url, want := range map[string]string{
		"http://c.test/":    `egressproxy: denied: host "c.test" is not granted`,
		"http://127.0.0.1/": `egressproxy: denied: host "127.0.0.1": internal address 127.0.0.1`,
		"http://[::1]/x":    `egressproxy: denied: host "[::1]": internal address ::1`,
		// The machine's own resolver: whatever its hosts file says, localhost is refused.
		"http://localhost/": `egressproxy: denied: host "localhost"`,
	} {
		code, body := proxyGet(t, ctx, addr, url)
		if code != http.StatusForbidden || !strings.HasPrefix(body, want) {
			t.Errorf("GET %s: %d %q, want 403 %q", url, code, body, want)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v; stderr:\n%s", err, stderr.String())
	}
	if stdout.Len() != 0 || strings.Count(stderr.String(), "egressproxy: denied GET") != 4 {
		t.Errorf("stdout %q, stderr %q: want nothing, and a line per refusal", stdout.String(), stderr.String())
	}
}

// freePort is a loopback address no one listens on (at the time).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// proxyGet sends GET url to the proxy at addr, waiting for it to listen.
func proxyGet(t *testing.T, ctx context.Context, addr, url string) (int, string) {
	t.Helper()
	var c net.Conn
	for {
		var err error
		if c, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the proxy never listened on %s: %v", addr, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", url)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	return resp.StatusCode, body.String()
}
