// Package proc is the client of sbxfuzz/1 (SPEC §12): a sandbox in another
// process, in any language, driven over its stdin and stdout. The harness
// keeps the world: the child makes every effect through world requests,
// which the client answers from the core.World of the scenario, so the
// journal stays the oracle's ground truth. Every failure of the child — it
// exits, writes a line that is not JSON-RPC, answers with a wrong id or an
// error, sends a world request out of turn, returns an unknown kind, writes
// a line over the size cap, or hangs — becomes a total finding on that op,
// with the tail of its stderr; its process group is killed and a fresh
// child serves the next scenario.
package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/proto"
)

// StderrTail is how much of a child's stderr is kept for findings.
const StderrTail = 2048

// shutdownWait bounds how long a child may take to exit after shutdown.
const shutdownWait = time.Second

// child is one running child process and its protocol state.
type child struct {
	p   *Process
	out *proto.Reader
	id  int64

	mu   sync.Mutex
	dead error // why the child can no longer be used; nil while it can

	// calling is held while a call is in flight: a call of a scenario the
	// harness gave up on (a hang) may still be, and then the child serves
	// no other call (calls take it with TryLock: none ever waits).
	calling sync.Mutex

	// opening counts the sandbox/open calls handed this child and not yet
	// returned. It is taken under the session's lock, before the call
	// itself takes calling, so that a build the harness gave up on while
	// it was still starting the child is seen as in flight by the next.
	opening atomic.Int32
}

// start runs argv as a Process, so that neither it nor its own children
// outlive the harness, and says initialize.
func start(argv []string) (*child, error) {
	p, err := Start(argv, "")
	if err != nil {
		return nil, err
	}
	c := &child{p: p, out: proto.NewReader(p.Stdout())}
	var hello struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if err := c.call(nil, "initialize", map[string]string{"protocol": proto.Version}, &hello); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

// kill kills the child's process group and waits for the child.
func (c *child) kill() { c.p.Kill() }

// shutdown asks the child to exit, then kills its group whatever it did.
func (c *child) shutdown() {
	if c.usable() == nil && !c.busy() {
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
	c.id++
	id := c.id
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if err := proto.Write(c.p.Stdin(), &proto.Message{ID: &id, Method: method, Params: p}); err != nil {
		return c.broken(fmt.Errorf("%s: writing to the sandbox process: %v", method, err))
	}
	for {
		m, err := c.out.Read()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return c.broken(fmt.Errorf("%s: %w", method, errExited))
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
				return c.broken(fmt.Errorf("%s: writing to the sandbox process: %v", method, err))
			}
		case m.ID == nil || *m.ID != id:
			return c.broken(fmt.Errorf("%s: a response with id %s, want %d", method, idWords(m.ID), id))
		case m.Error != nil:
			return c.broken(fmt.Errorf("%s: the sandbox answered with an error: %d %s", method, m.Error.Code, m.Error.Message))
		default:
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

func idWords(id *int64) string {
	if id == nil {
		return "none"
	}
	return fmt.Sprint(*id)
}
