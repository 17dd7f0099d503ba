package sbxtest

import (
	"errors"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
)

// Exec returns a factory for the sandbox that command runs in another
// process, in any language, speaking the sbxfuzz/1 protocol (SPEC §12) on
// its stdin and stdout, and the function that stops it. command is split
// into words as a shell would, without a shell. A child holds one
// sandbox at a time and serves scenario after scenario, a fresh child
// starting after a failure; a child that exits, breaks the protocol or
// hangs is a total finding. Call stop when done (t.Cleanup):
//
//	f, stop, err := sbxtest.Exec("python3 sandbox.py")
//	if err != nil {
//		t.Fatal(err)
//	}
//	t.Cleanup(stop)
//	sbxtest.Replay(t, sbxtest.Sandbox{Name: "python", Factory: f}, "testdata/*.sbx")
//
// The factory may be shared by tests that run in parallel (t.Parallel):
// a sandbox built while another is open gets a child of its own, started
// then and kept for later builds, and stop ends them all. Builds that
// hang keep their children until the number of builds under way reaches
// twice the number of CPUs Go uses (at least four); the next build then
// takes the oldest one's session, killing its child. Exec returns an
// error for a command whose program cannot be started at all (not found,
// not executable, an interpreter its #! line names missing), a mistake of
// the test rather than a finding on the sandbox (it starts the program
// once to know, and kills it); and, where the system has no process groups to kill a child's
// own children with (Windows), one saying it is not supported there.
func Exec(command string) (f core.Factory, stop func(), err error) {
	start, err := proc.Sessions(command)
	if err != nil {
		return nil, nil, err
	}
	if err := proc.Startable(command); err != nil {
		return nil, nil, err
	}
	p := &children{start: start, maxBuilding: max(4, 2*runtime.GOMAXPROCS(0))}
	c, token, err := p.take()
	if err != nil {
		return nil, nil, err
	}
	p.built(c, token)
	p.put(c, token)
	return p.open, p.stop, nil
}

// children are the children of one Exec: one session of the process door
// each, idle ones waiting for the next build. A session's child holds one
// sandbox at a time (a second sandbox/open replaces the first), so a
// session is taken for a build and the sandbox's life, and given back at
// its Close.
type children struct {
	start func() (core.Factory, func() error, error)
	// maxBuilding bounds the sessions in a build at once: a build that
	// hangs never gives its session back, and the next build past the
	// bound takes the session of the oldest one instead of starting a
	// child, which kills its hung child (a session whose call is still
	// in flight starts afresh), so a sandbox that hangs at every open
	// leaves no more children than that behind.
	maxBuilding int
	mu          sync.Mutex
	idle        []*child
	building    []*child // oldest first
	all         []*child
	taken       uint64 // the tokens handed out so far
	stopped     bool
}

// child is one session: its factory, the function that ends it, and the
// token of the build or sandbox that holds it (0: idle). A build whose
// session was taken from it gives back nothing.
type child struct {
	open  core.Factory
	end   func() error
	owner uint64
}

// errStopped is the words for a factory called after its stop.
var errStopped = errors.New("sbxtest.Exec: the factory was used after stop")

// take returns a session for a build, and the build's token: an idle one,
// else a new one, else, past maxBuilding, the oldest build's.
func (p *children) take() (*child, uint64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil, 0, errStopped
	}
	var c *child
	switch n := len(p.idle); {
	case n > 0:
		c, p.idle = p.idle[n-1], p.idle[:n-1]
	case len(p.building) >= p.maxBuilding:
		c, p.building = p.building[0], p.building[1:]
	default:
		open, end, err := p.start()
		if err != nil {
			return nil, 0, err
		}
		c = &child{open: open, end: end}
		p.all = append(p.all, c)
	}
	p.taken++
	c.owner = p.taken
	p.building = append(p.building, c)
	return c, c.owner, nil
}

// built marks the build of token over: its session holds a sandbox now,
// or is given back.
func (p *children) built(c *child, token uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.owner == token {
		p.building = slices.DeleteFunc(p.building, func(b *child) bool { return b == c })
	}
}

// put gives the session token holds back for the next build.
func (p *children) put(c *child, token uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.owner == token && !p.stopped {
		c.owner = 0
		p.idle = append(p.idle, c)
	}
}

// open is the shared factory: the sandbox is built on a session of its
// own, given back when the sandbox is closed.
func (p *children) open(g core.Grant, w core.World) (core.Sandbox, error) {
	c, token, err := p.take()
	if err != nil {
		return nil, err
	}
	sb, err := c.open(g, w)
	p.built(c, token)
	if err != nil || sb == nil {
		p.put(c, token)
		return sb, err
	}
	return &held{Sandbox: sb, release: sync.OnceFunc(func() { p.put(c, token) })}, nil
}

// stop ends every session, idle or not: their children are killed, a
// call still under way included.
func (p *children) stop() {
	p.mu.Lock()
	all := p.all
	p.all, p.idle, p.building, p.stopped = nil, nil, nil, true
	p.mu.Unlock()
	for _, c := range all {
		_ = c.end()
	}
}

// held is a sandbox built on a session taken for it: its Close gives the
// session back, once, whatever Close answered (a session whose child broke
// starts a fresh one at its next build).
type held struct {
	core.Sandbox
	release func()
}

// Close closes the sandbox and gives its session back.
func (h *held) Close() error {
	defer h.release()
	if c, ok := h.Sandbox.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
