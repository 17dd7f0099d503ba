package mcp

import (
	"slices"
	"sync"
)

// Pool keeps one worker's MCP server alive across scenarios, since
// starting one costs node half a second or more. The zero Pool is empty
// and ready; it is safe for concurrent use, so Close may come from a
// signal handler while the worker runs.
type Pool struct {
	mu  sync.Mutex
	s   *Server
	cfg Config // what s was started with
}

// Get returns a live server started as cfg says: the last one when its
// command, directory and allowed directories are cfg's and it has not
// failed, else a fresh one (the last is shut down first). A reused
// server takes cfg's profile and timeouts, which only the client uses.
func (p *Pool) Get(cfg Config) (*Server, error) {
	cfg = cfg.defaulted()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.s != nil && p.s.Err() == nil && sameProcess(p.cfg, cfg) {
		if err := p.s.hasTools(cfg.Profile); err != nil {
			return nil, err
		}
		p.s.setClient(cfg)
		return p.s, nil
	}
	p.closeLocked()
	s, err := Start(cfg)
	if err != nil {
		return nil, err
	}
	p.s, p.cfg = s, cfg
	return s, nil
}

// Close shuts the pool's server down (stdin closed, a second to exit,
// then its process group killed). The pool may be used again.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeLocked()
	return nil
}

func (p *Pool) closeLocked() {
	if p.s != nil {
		p.s.Close()
		p.s = nil
	}
}

// sameProcess reports whether a server started for a serves b: the same
// command line and working directory.
func sameProcess(a, b Config) bool {
	return a.Root == b.Root && slices.Equal(a.Profile.argv(a.Command, a.Allowed), b.Profile.argv(b.Command, b.Allowed)) && sameEnviron(a, b)
}
