package mcp

import (
	"slices"
	"sync"
)

// Pool keeps one worker's MCP servers alive across scenarios, since
// starting one costs node half a second or more. The zero Pool is empty
// and ready, and keeps one server; it is safe for concurrent use, so Close
// may come from a signal handler while the worker runs.
type Pool struct {
	// Max is how many servers the pool keeps alive at once, each started
	// for other directories: past it, the one used least recently is shut
	// down. Zero is one.
	Max int

	mu   sync.Mutex
	live []pooled // the least recently used first

	// counting guards started, starting and gone apart from mu, so that
	// a count read while Close stops the servers does not wait for it,
	// nor Close for a Get that holds mu while a server starts.
	counting sync.Mutex
	started  []*Server // servers started and not shut down yet
	starting []*Server // servers in their handshake, in Get
	closing  int       // Closes under way: a server that begins its handshake meanwhile is killed at once
	gone     int64     // the stdout lines skipped by the servers shut down
}

// pooled is a live server and what it was started with.
type pooled struct {
	s   *Server
	cfg Config
}

// Get returns a live server started as cfg says: one the pool holds when
// its command, directory, allowed directories and State are cfg's and it
// has not failed, else a fresh one. A reused server takes cfg's profile
// and timeouts, which only the client uses.
func (p *Pool) Get(cfg Config) (*Server, error) {
	cfg = cfg.defaulted()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropFailed()
	for i, e := range p.live {
		if !sameProcess(e.cfg, cfg) {
			continue
		}
		if err := e.s.hasTools(cfg.Profile); err != nil {
			return nil, err
		}
		e.s.setClient(cfg)
		e.s.handedOut.Store(true)
		p.live = append(slices.Delete(p.live, i, i+1), e) // now the most recently used
		return e.s, nil
	}
	for len(p.live) >= max(p.Max, 1) {
		p.shut(p.live[0].s)
		p.live = slices.Delete(p.live, 0, 1)
	}
	var begun *Server
	s, err := start(cfg, func(s *Server) {
		p.counting.Lock()
		defer p.counting.Unlock()
		begun, p.starting = s, append(p.starting, s)
		if p.closing > 0 {
			s.p.Kill() // a Close waits for mu, which this Get holds
		}
	})
	p.counting.Lock()
	p.starting = slices.DeleteFunc(p.starting, func(s *Server) bool { return s == begun })
	if err == nil {
		p.started = append(p.started, s)
	}
	p.counting.Unlock()
	if err != nil {
		return nil, err
	}
	p.live = append(p.live, pooled{s, cfg})
	return s, nil
}

// DropIf shuts down the servers started for a Config stale reports, so
// that none is handed out again.
func (p *Pool) DropIf(stale func(Config) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live = slices.DeleteFunc(p.live, func(e pooled) bool {
		if stale(e.cfg) {
			p.shut(e.s)
			return true
		}
		return false
	})
}

// Len is how many servers the pool holds that have not failed.
func (p *Pool) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropFailed()
	return len(p.live)
}

// dropFailed shuts down and forgets the servers that failed (a hang, a
// crash, a protocol error, or a Close from outside) and those whose
// process ended while they waited in the pool: a server that exits when
// idle (or was killed meanwhile) answered every op it was asked, and the
// next scenario, which asked it nothing yet, is not to be judged by its
// going.
func (p *Pool) dropFailed() {
	p.live = slices.DeleteFunc(p.live, func(e pooled) bool {
		if e.s.Err() != nil || ended(e.s) {
			p.shut(e.s)
			return true
		}
		return false
	})
}

// Close shuts the pool's servers down (stdin closed, a second to exit,
// then each process group killed), and kills one a Get is starting, whose
// Get then fails. The pool may be used again.
func (p *Pool) Close() error {
	// A server still in its handshake is killed first: the Get starting
	// it holds mu until the handshake fails.
	p.counting.Lock()
	p.closing++
	for _, s := range p.starting {
		s.p.Kill()
	}
	p.counting.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	defer func() { // before mu is let go: a Get that takes it next starts its server as usual
		p.counting.Lock()
		defer p.counting.Unlock()
		p.closing--
	}()
	// All at once: each waits up to closeWait for its server to exit, and
	// an interrupted campaign gives its sessions only a moment to end
	// (and remove their trees) before it exits.
	var wg sync.WaitGroup
	for _, e := range p.live {
		wg.Go(func() { p.shut(e.s) })
	}
	wg.Wait()
	p.live = nil
	return nil
}

// shut shuts s down and keeps the count of the lines it skipped.
func (p *Pool) shut(s *Server) {
	s.Close()
	p.counting.Lock()
	defer p.counting.Unlock()
	if i := slices.Index(p.started, s); i >= 0 {
		p.gone += s.SkippedLines()
		p.started = slices.Delete(p.started, i, i+1)
	}
}

// SkippedLines is how many stdout lines that were not JSON-RPC the
// pool's servers skipped (Server.SkippedLines), those shut down included.
// It does not wait for a Close under way.
func (p *Pool) SkippedLines() int64 {
	p.counting.Lock()
	defer p.counting.Unlock()
	n := p.gone
	for _, s := range p.started {
		n += s.SkippedLines()
	}
	return n
}

// sameProcess reports whether a server started for a serves b: the same
// command line, working directory, allowed directories, environment and
// State.
func sameProcess(a, b Config) bool {
	return a.Root == b.Root && a.State == b.State && slices.Equal(a.Allowed, b.Allowed) &&
		slices.Equal(a.Profile.argv(a.Command, a.Allowed), b.Profile.argv(b.Command, b.Allowed)) && sameEnviron(a, b)
}

// ended reports whether s's process has ended.
func ended(s *Server) bool {
	select {
	case <-s.Exited():
		return true
	default:
		return false
	}
}
