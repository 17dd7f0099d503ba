package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/networld"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
)

// StderrTail is how much of a child's stderr is kept for findings.
const StderrTail = 2048

// shutdownWait bounds how long a child may take to exit after shutdown.
const shutdownWait = time.Second

// child is one running child process and its protocol state.
type child struct {
	p    *Process
	out  *proto.Reader
	pipe *stdoutPipe // what out reads from
	id   int64
	bind *networld.Binding // answers its network namespace; nil: it has none

	mu   sync.Mutex
	dead error // why the child can no longer be used; nil while it can

	// calling is held while a call is in flight: a call of a scenario the
	// harness gave up on (a hang) may still be, and then the child serves
	// no other call (calls take it with TryLock: none ever waits).
	calling sync.Mutex

	// opening counts the sandbox/open calls handed this child and not yet
	// returned (initialize included). It is taken under the session's
	// lock, before the call itself takes calling, so that a build the
	// harness gave up on while it was still starting the child is seen as
	// in flight by the next.
	opening atomic.Int32

	// ops counts the sandbox/run calls since the last sandbox/open, and
	// last names the last call the child answered, for the words on a
	// child that writes when it is not its turn. Both are written by the
	// call holding calling.
	ops  int
	last string

	// stricter lists the op kinds the child declared, in its initialize
	// answer, to refuse more of than the model allows (SPEC §12): set
	// once, before its first sandbox is opened.
	stricter []string
}

// start runs argv as a Process, so that neither it nor its own children
// outlive the harness. It reads nothing: initialize is the first call, made
// by whoever opens the first sandbox, so that a child that never answers
// is a call the session can give up on, not a start that holds it.
func start(argv []string) (*child, error) {
	p, err := Start(argv, "")
	if err != nil {
		return nil, err
	}
	return newChild(p), nil
}

// newChild is the child running as p, its stdout read as sbxfuzz/1.
func newChild(p *Process) *child {
	pipe := &stdoutPipe{p: p}
	return &child{p: p, out: proto.NewReader(pipe), pipe: pipe}
}

// startInNet is start in a network namespace of its own (SPEC §14),
// answered by a binding to the world of the scenario under way, with
// SBXFUZZ_NETNS=1 in its environment so that it knows its connections
// reach the world, not the machine's network. The error wraps
// netns.ErrUnavailable where this machine cannot make the namespace.
func startInNet(argv []string) (*child, error) {
	b := networld.New()
	p, ns, err := StartNet(argv, "", []string{netnsEnv + "=1"}, b.Network(netPorts...))
	if err != nil {
		return nil, err
	}
	b.Attach(ns.TakeRecords)
	c := newChild(p)
	c.bind = b
	return c, nil
}

// initialize says initialize: the first call to every child.
func (c *child) initialize() error {
	var hello struct {
		Name     string   `json:"name"`
		Version  string   `json:"version"`
		Stricter []string `json:"stricter"`
	}
	if err := c.call(nil, "initialize", map[string]string{"protocol": proto.Version}, &hello); err != nil {
		return err
	}
	c.stricter = hello.Stricter
	return nil
}

// kill kills the child's process group and waits for the child.
func (c *child) kill() { c.p.Kill() }

// shutdown asks the child to exit, then kills its group whatever it did.
// A child with a call in flight (an open or an op the harness gave up on,
// a child that never answered initialize) is killed at once: its call
// holds the reader, and the kill is what makes that call return.
func (c *child) shutdown() {
	if c.usable() == nil && !c.busy() && c.opening.Load() == 0 {
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.call(nil, "shutdown", struct{}{}, nil)
		}()
		select {
		case <-done:
		case <-time.After(shutdownWait):
		}
		select {
		case <-c.p.Exited():
		case <-time.After(shutdownWait):
		}
	}
	c.kill()
}

// busy reports whether a call is in flight.
func (c *child) busy() bool {
	if c.calling.TryLock() {
		c.calling.Unlock()
		return false
	}
	return true
}

func (c *child) usable() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

// broken marks the child unusable for err, kills it, and returns err with
// the tail of its stderr.
func (c *child) broken(err error) error {
	c.mu.Lock()
	if c.dead == nil {
		c.dead = err
	}
	c.mu.Unlock()
	c.kill()
	return c.p.WithStderr(err)
}

// errExited is the words for a child whose stdout closed.
var errExited = errors.New("the sandbox process exited")

// call sends a request and reads until its response, answering the world
// requests the child makes meanwhile from w (nil: none may come). Any
// failure breaks the child.
func (c *child) call(w worldServer, method string, params, result any) error {
	if err := c.usable(); err != nil {
		return err
	}
	if !c.calling.TryLock() {
		return c.broken(fmt.Errorf("%s: a call of an abandoned scenario is still in flight", method))
	}
	defer c.calling.Unlock()
	if err := c.quiet(method); err != nil {
		return err
	}
	c.id++
	id := proto.IntID(c.id)
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := proto.Write(c.p.Stdin(), &proto.Message{ID: id, Method: method, Params: p}); err != nil {
		return c.broken(fmt.Errorf("%s: writing to the sandbox process: %v%s", method, err, c.p.Ended()))
	}
	for {
		m, err := c.out.Read()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed):
			// os.ErrClosed: the process exited and its pipe was closed
			// before this read began, which a crash makes a race.
			return c.broken(fmt.Errorf("%s: %w%s", method, errExited, c.p.Ended()))
		case err != nil:
			return c.broken(fmt.Errorf("%s: %v", method, err))
		case m.Method != "":
			if w == nil {
				return c.broken(fmt.Errorf("%s: a world request (%s) when none may come", method, m.Method))
			}
			resp, err := w.serve(m)
			if err != nil {
				return c.broken(fmt.Errorf("%s: %s: %v", method, m.Method, err))
			}
			if err := proto.Write(c.p.Stdin(), resp); err != nil {
				return c.broken(fmt.Errorf("%s: writing to the sandbox process: %v%s", method, err, c.p.Ended()))
			}
		case !m.ID.Equal(id):
			return c.broken(fmt.Errorf("%s: a response with id %s, want %s%s", method, m.ID, id, proto.Unasked(m.ID, c.id)))
		case m.Error != nil:
			return c.broken(fmt.Errorf("%s: the sandbox answered with an error: %d %s", method, m.Error.Code, m.Error.Message))
		default:
			c.answered(method)
			if err := c.quiet(method); err != nil {
				return err
			}
			if result == nil {
				return nil
			}
			if err := json.Unmarshal(m.Result, result); err != nil {
				return c.broken(fmt.Errorf("%s: a result that does not read: %v", method, err))
			}
			return nil
		}
	}
}

// answered records that the child answered method.
func (c *child) answered(method string) {
	switch method {
	case "sandbox/open":
		c.ops = 0
		c.last = method
	case "sandbox/run":
		c.ops++
		c.last = "op " + strconv.Itoa(c.ops)
	default:
		c.last = method
	}
}

// quiet returns nil unless the child wrote something after its last answer
// that nobody asked for — a world request between ops, say, which must not
// be served inside the next op and blamed on it. It looks, without
// blocking, at what is buffered or waiting in the pipe: right after an
// answer (a line written with it is caught on the op it followed) and
// again before the next request. It reads only what the child wrote
// already: a line it left without its end is no reason to wait for more.
func (c *child) quiet(method string) error {
	if c.last == "" || c.out.Buffered() == 0 && !c.p.pendingOutput() {
		return nil
	}
	c.pipe.writtenOnly = true
	m, err := c.out.Read()
	c.pipe.writtenOnly = false
	switch {
	case errors.Is(err, errUnfinished):
		return c.broken(fmt.Errorf("%s: part of a line, without its end, after %s answered, before the next request", method, c.last))
	case err != nil:
		return c.broken(fmt.Errorf("%s: a line after %s answered, before the next request: %v", method, c.last, err))
	case m.Method != "":
		return c.broken(fmt.Errorf("%s: a world request (%s) after %s answered, before the next request: the harness serves world requests only while an op or an open is pending", method, m.Method, c.last))
	default:
		return c.broken(fmt.Errorf("%s: a message with id %s after %s answered, before the next request", method, m.ID, c.last))
	}
}

// errUnfinished is stdoutPipe's error for a read, of what the child wrote
// already, that would have to wait for it to write more.
var errUnfinished = errors.New("the child wrote no more yet")

// stdoutPipe is a child's stdout as its reader reads it: a read waits for
// the child to write, but not while writtenOnly is set, for quiet, which
// looks at what the child wrote out of turn and must not wait on a call
// the child answered for the end of a line it left unfinished.
type stdoutPipe struct {
	p           *Process
	writtenOnly bool // set by the call holding calling, as are the reads
}

func (s *stdoutPipe) Read(b []byte) (int, error) {
	if s.writtenOnly && !s.p.pendingOutput() {
		return 0, errUnfinished
	}
	return s.p.Stdout().Read(b)
}
