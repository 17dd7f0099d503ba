package netns

import (
	"errors"
	"io"
	"net/http"
	"net/netip"
	"os"
	"time"
)

// ErrUnavailable is wrapped by the error Start returns when this machine
// cannot make the namespaces: "network namespaces unavailable: why".
var ErrUnavailable = errors.New("network namespaces unavailable")

// ErrGone is the error of a dial into a namespace whose command has
// exited (or was stopped): its init is gone with it.
var ErrGone = errors.New("netns: the namespace is gone (its command exited or was killed)")

// Family is the address family a DNS query asks for.
type Family int

// The families of A and AAAA queries.
const (
	IPv4 Family = 4
	IPv6 Family = 6
)

// Network is what the namespace answers. Resolve and Handler are called
// from several goroutines at once; Resolve is called once per DNS query,
// in the order the queries arrive.
type Network struct {
	// Ports are the TCP ports listened on, on every address, IPv4 and
	// IPv6; a connection to another port is refused. A bounded number of
	// connections are served at once: one past it is recorded, and closed
	// at once; one that sends no request, or sits idle between requests,
	// for long is closed.
	Ports []uint16
	// Resolve answers a query for name (ASCII letters in lower case, every
	// other byte as queried, no trailing dot) of family; nil or empty is
	// an answer with no address. A nil Resolve answers nothing.
	Resolve func(name string, family Family) []netip.Addr
	// Handler answers every HTTP request, CONNECT included; a nil Handler
	// answers 404. LocalAddr gives the address a request was aimed at.
	Handler http.Handler
}

// Command is a program to run in the namespace, bounded.
type Command struct {
	// Argv is the program (looked up in PATH if it has no slash) and its
	// arguments.
	Argv []string
	// Env is its environment; nil is the harness's own.
	Env []string
	// Dir is its working directory; empty is the harness's own.
	Dir string
	// Timeout bounds how long it runs, counted from its start (the
	// namespace's setup before is not); zero is one minute; negative is no
	// bound, for a caller that bounds each exchange itself and kills the
	// command when one runs over (a supervised child serving many
	// scenarios).
	Timeout time.Duration
	// MaxOutput bounds how much of its stdout and of its stderr is kept:
	// the first bytes of stdout; the first half and the last half of
	// stderr, whose last words say why a command failed. Zero is 1 MiB.
	MaxOutput int
	// Stdin is its stdin; nil reads nothing (the null device).
	Stdin *os.File
	// Stdout, if not nil, is its stdout, handed to it as it is (a pipe a
	// client reads a protocol from, say): then Result.Stdout is empty.
	Stdout *os.File
	// Stderr, if not nil, receives its stderr: then Result.Stderr is
	// empty.
	Stderr io.Writer
}

// Record is one connection accepted in the namespace, or one request read
// from it.
type Record struct {
	// Conn numbers connections from 1 in the order they were accepted.
	Conn int
	// Local is the address and port the connection was aimed at, unmapped.
	Local netip.AddrPort
	// Method, Host and Target are the request's (Target as the request
	// line spells it: a path, an absolute URL, or CONNECT's host:port);
	// all are empty in the record of the connection itself, which comes
	// before those of its requests.
	Method, Host, Target string
}

// Result is how a command ended.
type Result struct {
	// ExitCode is its exit status, 128+N if a signal N killed it, -1 if
	// it could not be waited for.
	ExitCode int
	// TimedOut says it was killed for running past its Timeout.
	TimedOut bool
	// Stdout is the first MaxOutput bytes of the command's stdout.
	Stdout string
	// Stderr is the first and the last bytes of its stderr, MaxOutput in
	// all; when bytes between them were cut, a line between them says
	// how many.
	Stderr string
	// Truncated says output was cut at MaxOutput.
	Truncated bool
}

const (
	defaultTimeout   = time.Minute
	defaultMaxOutput = 1 << 20
)

// timeout is how long c may run; zero if it has no bound.
func (c Command) timeout() time.Duration {
	switch {
	case c.Timeout == 0:
		return defaultTimeout
	case c.Timeout < 0:
		return 0
	}
	return c.Timeout
}

func (c Command) maxOutput() int {
	if c.MaxOutput <= 0 {
		return defaultMaxOutput
	}
	return c.MaxOutput
}
