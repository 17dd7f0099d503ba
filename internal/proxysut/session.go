package proxysut

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
)

// maxLive is how many proxies a session keeps running, each for another
// list of granted hosts.
const maxLive = 2

// recycleOps is how many fetches a proxy serves before it is replaced
// by a fresh one: whatever a proxy keeps per request (a cache, a leak) is
// then bounded, and a campaign's memory stays flat whatever the proxy.
const recycleOps = 2048

// session is one campaign worker's proxies: at most maxLive running, each
// for one list of granted hosts. A proxy serves every sandbox of its
// hosts the session builds (but for a Fresh profile's: one sandbox), a
// check's run and its replay among them: the sandboxes of a session run
// their ops one at a time (a session is one goroutine's), and each op
// binds the proxy's namespace to the world of the sandbox that runs it.
// Starting a proxy costs far more than an op, so one proxy for both
// halves of a check halves the cost of the door. A session is safe for
// concurrent use: the oracle's watchdog closes a hung sandbox from
// another goroutine.
type session struct {
	argv     []string
	profile  Profile
	id       identity
	timeouts Timeouts
	dir      string         // the proxies' directories go here
	runDir   *realfs.RunDir // dir, when the session made it: removed at its end
	tally    *door.Counter
	run      *runState    // shared by the sessions of one Target
	hostless bool         // the profile gives the proxy no hosts (readsHosts)
	gone     atomic.Int64 // the stdout lines the MCP servers stopped had skipped

	mu       sync.Mutex
	live     []*pooled // the least recently used first
	ended    bool
	stopping sync.WaitGroup // proxies being stopped in the background (stop)
}

// pooled is a running proxy and how many sandboxes hold it.
type pooled struct {
	px      *proxy
	holders int
}

// fresh reports whether every sandbox gets a proxy of its own: under a
// Fresh profile, or once a proxy was seen to keep DNS answers across
// worlds.
func (s *session) fresh() bool {
	return s.profile.Fresh || s.run.cached.Load()
}

// cachesDNS notes a fetch from an earlier world's DNS answer: counted,
// and every sandbox of the run gets a proxy of its own from now on.
func (s *session) cachesDNS() {
	s.run.cached.Store(true)
	s.run.stale.Add(1)
}

// cachesAnswers notes a fetch a server answered from a cache of its own:
// every sandbox of the run gets a server of its own from now on, so that
// a check's replay is not served from what its run filled.
func (s *session) cachesAnswers() { s.run.cached.Store(true) }

// runState is what the sessions of one Target share.
type runState struct {
	// cached is set once a proxy fetched from an earlier world's DNS
	// answer (staleFetch), or a server answered from a cache of its own:
	// from then on every session starts a proxy for every sandbox, as for
	// a Fresh profile.
	cached atomic.Bool
	// stale counts those fetches, over every session: the campaign's
	// and those of the pipeline that judges findings again, whose
	// tallies no one reads.
	stale atomic.Int64
	// reporter is set once a session reports stale in its tally: one
	// does, so that the sum over the sessions counts each fetch once.
	reporter atomic.Bool
}

// errEnded is the words for a factory called after its session ended.
var errEnded = errors.New("the session has ended")

// get returns a proxy for hosts, started if the session has none that
// can serve more (always, for a Fresh profile), and counts the caller
// among its holders. A profile that does not give the proxy its hosts
// has one proxy for every grant.
func (s *session) get(hosts []string) (*proxy, error) {
	if s.hostless {
		hosts = nil // one proxy serves every grant
	}
	key := hostsKey(hosts)
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return nil, errEnded
	}
	for i, e := range s.live {
		if e.px.key == key && !e.px.failed.Load() && !s.fresh() && (e.holders > 0 || e.px.ops < recycleOps) {
			e.holders++
			s.live = append(slices.Delete(s.live, i, i+1), e) // now the most recently used
			s.mu.Unlock()
			return e.px, nil
		}
	}
	s.evict()
	s.mu.Unlock()
	// Started without the lock: a start takes a while, and the watchdog
	// may need the session meanwhile to close a hung sandbox.
	px, err := start(s.argv, s.profile, hosts, s.dir, s.timeouts, s.id.note)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		px.close()
		return nil, errEnded
	}
	s.live = append(s.live, &pooled{px: px, holders: 1})
	return px, nil
}

// evict stops the proxies no sandbox holds, the least recently used
// first, until a new one fits. Held ones are never stopped: with all
// held (a hung sandbox still closing), the session briefly keeps more.
func (s *session) evict() {
	s.live = slices.DeleteFunc(s.live, func(e *pooled) bool {
		if e.holders == 0 && e.px.failed.Load() {
			s.stop(e.px)
			return true
		}
		return false
	})
	for len(s.live) >= maxLive {
		i := slices.IndexFunc(s.live, func(e *pooled) bool { return e.holders == 0 })
		if i < 0 {
			return
		}
		s.stop(s.live[i].px)
		s.live = slices.Delete(s.live, i, i+1)
	}
}

// release hands px back: once no sandbox holds it, it is unbound from
// every world, and stopped if it failed, has served its share or is a
// Fresh profile's, else kept for the next sandboxes of its hosts. A
// failed proxy is stopped at once, held or not: a hung fetch is ended
// that way.
func (s *session) release(px *proxy) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.live, func(e *pooled) bool { return e.px == px })
	if i < 0 {
		return
	}
	e := s.live[i]
	e.holders--
	if e.holders == 0 {
		px.unbind()
	}
	if px.failed.Load() || e.holders == 0 && (px.ops >= recycleOps || s.fresh()) {
		s.stop(px)
		s.live = slices.Delete(s.live, i, i+1)
	}
}

// stop stops px in the background: killing a namespace and waiting for
// it takes a few milliseconds the next check need not wait for. end
// waits for it.
func (s *session) stop(px *proxy) {
	s.stopping.Add(1)
	go func() {
		defer s.stopping.Done()
		px.close()
		s.gone.Add(px.skippedLines()) // every line it wrote, now that it is gone
	}()
}

// skippedLines counts the lines on stdout that were not protocol the
// session's MCP servers skipped (logs), those stopped included.
func (s *session) skippedLines() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.gone.Load()
	for _, e := range s.live {
		n += e.px.skippedLines()
	}
	return n
}

// end stops every proxy of the session, waits until they are gone, and
// removes the session's directory.
func (s *session) end() error {
	s.mu.Lock()
	s.ended = true
	for _, e := range s.live {
		s.stop(e.px)
	}
	s.live = nil
	s.mu.Unlock()
	s.stopping.Wait()
	if s.runDir != nil {
		return s.runDir.Remove()
	}
	return os.RemoveAll(s.dir)
}

// factory is the session's core.Factory: the world handed in must be the
// harness's *refworld.World, which the proxy's namespace answers from.
func (s *session) factory(g core.Grant, w core.World) (core.Sandbox, error) {
	rw, ok := w.(*refworld.World)
	if !ok {
		return nil, fmt.Errorf("a proxy needs the harness's own world, not a %T", w)
	}
	rw.SetStandIns() // the bridge answers as the model where it excuses the proxy
	px, err := s.get(wireHosts(g.NetHosts()))
	if err != nil {
		return nil, err
	}
	return newBridge(g, rw, px, s), nil
}

// wireHosts are hosts as a URL carries them, which is how a proxy is
// given them: an IPv6 literal in brackets (Adapt leaves out the ops that
// would tell "::1" from "[::1]"), each once ("::1" and "[::1]" are one:
// a configuration naming it twice is one many proxies refuse to start
// with).
func wireHosts(hosts []string) []string {
	var out []string
	for _, h := range hosts {
		if w := urlHost(h); !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// Timeouts bound what a proxy is asked.
type Timeouts struct {
	Op    time.Duration // one fetch; 0 is DefaultTimeout
	Start time.Duration // a proxy's start, until it accepts a connection; 0 is DefaultStartTimeout
}

// DefaultTimeout bounds one fetch when Timeouts.Op is zero: the oracle's
// own default, which gives up on the op first.
const DefaultTimeout = 2 * time.Second

// DefaultStartTimeout bounds a proxy's start when Timeouts.Start is zero.
const DefaultStartTimeout = 10 * time.Second

func (t Timeouts) op() time.Duration {
	if t.Op <= 0 {
		return DefaultTimeout
	}
	return t.Op
}

func (t Timeouts) start() time.Duration {
	if t.Start <= 0 {
		return DefaultStartTimeout
	}
	return t.Start
}
