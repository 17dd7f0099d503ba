package networld

import (
	"net/http"
	"net/netip"
	"slices"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// Header is the header every answer of the world carries, with the value
// "1": an answer without it is not the world's (a proxy's own refusal,
// say).
const Header = "X-Sbxfuzz-World"

// Binding answers a namespace from the world of the scenario under way.
// The zero Binding is not usable: build one with New. It is safe for
// concurrent use.
type Binding struct {
	mu    sync.Mutex
	world *refworld.World // nil: no scenario under way
	open  bool            // journaling: from Use or BeginOp to EndOp
	late  int64           // requests outside an op since TakeLate
	// lateLeast is the least of them, "host address path".
	lateLeast string
	op        opState
	lookups   map[string]lookup // the DNS lookups of the op under way, by name
	// before holds, for each address (unmapped) a fetch of an earlier op
	// of the scenario was journaled from, the hosts (hostKey) it was for
	// and their paths (repeat).
	before sentTo

	take func() []netns.Record // takes the namespace's new records (Attach); nil: none

	// ignored, when set, names the names the DNS server answers nothing
	// and journals nothing for (Ignore).
	ignored func(name string) bool

	// localAddr is the address a request was aimed at: netns.LocalAddr,
	// which tests replace, having no namespace to serve from.
	localAddr func(*http.Request) netip.AddrPort
}

// opState is what the binding knows of the op under way.
type opState struct {
	host, path string     // a net_fetch's; empty for another op
	resolved   bool       // a resolve of host was journaled in the op
	addr       netip.Addr // what the last of them answered
	lookups    int        // how many of them there were
	internal   bool       // one of them answered an internal address
	// internalServed is internal when the request whose answer served
	// is was made: what the lookups before it answered.
	internalServed bool
	all            []netip.Addr // what each of them answered, in order
	served         Served       // the world's answer to a request of host (Served)
	servedPath     bool         // served answered the op's own path
	askedPage      bool         // a request for the op's host asked a path other than sidePaths
	elsewhere      bool         // a request for another host was answered (Served.Elsewhere)
	kept           bool         // a request for the op's host, a name, came with no lookup of it (Lookups.Kept)
	// answers holds, for every host a resolve in the op answered (the
	// op's, a redirect's Location), normalized, the last answer: a
	// literal already resolved is not resolved again, and a connection
	// without a request is told apart by the host whose answer it went to.
	answers map[string]netip.Addr
	// sent holds the fetches of the op that were journaled, by a request
	// or a connection that sent none, as before keeps them: a browser
	// opens a varying number of connections without a request beside its
	// requests (a preconnect, a spare socket), and each more would be
	// journaled as one more fetch, another count on every run.
	sent sentTo
	// located holds the hosts (hostKey) of the redirects the world served
	// in the op, each as its Location spelled it: a sandbox that follows
	// one with an answer it kept asks them without a lookup, and a DNS
	// query for one, which reaches the server folded to lower case, is
	// journaled as the Location spelled it (queried).
	located map[string]string
}

// sentTo holds fetches by the address they reached (unmapped), then the
// host they were for (hostKey), then their paths.
type sentTo map[netip.Addr]map[string]map[string]bool

// add notes a fetch of host and path from a.
func (m *sentTo) add(a netip.Addr, host, path string) {
	if *m == nil {
		*m = sentTo{}
	}
	a, k := a.Unmap(), hostKey(host)
	if (*m)[a] == nil {
		(*m)[a] = map[string]map[string]bool{}
	}
	if (*m)[a][k] == nil {
		(*m)[a][k] = map[string]bool{}
	}
	(*m)[a][k][path] = true
}

// hostKey is host as the maps of fetches key it: an IP literal, in any
// spelling (SPEC §6), as its address unmapped, a name normalized.
func hostKey(host string) string {
	h := spec.NormalizeHost(host)
	if a, ok := spec.ParseIPLiteral(h); ok {
		return a.Unmap().String()
	}
	return spec.Unbracket(h)
}

// resolvedTo notes that a resolve of the op's own host answered a.
func (o *opState) resolvedTo(a netip.Addr) {
	o.addr, o.resolved = a, true
	o.lookups++
	o.internal = o.internal || spec.IsInternal(a)
	o.all = append(o.all, a)
}

// fetchedOnce notes a fetch of host and path from a in the op, and
// reports whether it is the first of host from a.
func (o *opState) fetchedOnce(host, path string, a netip.Addr) bool {
	first := o.sent[a.Unmap()][hostKey(host)] == nil
	o.sent.add(a, host, path)
	return first
}

// answered notes that a resolve of host answered a in the op.
func (o *opState) answered(host string, a netip.Addr) {
	if o.answers == nil {
		o.answers = map[string]netip.Addr{}
	}
	o.answers[spec.NormalizeHost(host)] = a
}

// answeredBy returns a host, other than the op's, whose last answer in
// the op was a (unmapped), the first in name order: the host a
// connection to a was for. The op's own host comes first in the callers.
func (o *opState) answeredBy(a netip.Addr) (string, bool) {
	var hosts []string
	for h, x := range o.answers {
		if x.Unmap() == a.Unmap() {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return "", false
	}
	slices.Sort(hosts)
	return hosts[0], true
}

// Served is the world's answer, in the op under way or the one that ended
// last, to a request for the op's host and path (else to the last request
// for its host): a door that cannot see the
// answer its sandbox got (an MCP server's fetch tool answers in words of
// its own) learns from it whether the world was reached, and what it
// gave.
type Served struct {
	Reached bool   // a request for the op's host got the world's answer
	Found   bool   // it was the route's body (200 or 302), not 404
	Body    string // the body, when Found: a redirect's URL
	// Redirect says the route was a redirect, answered "302 Found" with
	// the URL as Location and body: the fetch got the URL, as the model's
	// fetch does, whether or not the sandbox followed it.
	Redirect bool
	// Bare says a connection of the op sent no request (a TLS hello, a
	// connect and close) to an address the op's host was not fetched
	// from by a request: EndOp journaled it as a fetch of the op's host.
	Bare bool
	// Elsewhere says a request for another host than the op's got the
	// world's answer in the op: where none of the op's host did, the
	// sandbox fetched another host instead of it (a URL parser's reading
	// of the host, a relay of its own).
	Elsewhere bool
	// SideOnly says the requests for the op's host asked only paths a
	// client asks beside a page, never in its stead (/robots.txt): a
	// fetch tool that read a Disallow there and answered with an error
	// refused the op, whatever the answer to robots.txt was.
	SideOnly bool
}

// New returns a binding with no world: until Use, its DNS server answers
// nothing and its listeners 503.
func New() *Binding {
	return &Binding{localAddr: netns.LocalAddr, lookups: map[string]lookup{}}
}

// Ignore has b's DNS server answer nothing for a name ignored reports,
// journaling nothing: names the sandbox's own machinery asks whatever the
// op (a browser's update and clock checks), whose traffic is not the
// op's. It is set before the namespace starts.
func (b *Binding) Ignore(ignored func(name string) bool) { b.ignored = ignored }

// Network is what a namespace answered by b needs: TCP listeners on
// ports, the DNS server's Resolve and the listeners' Handler.
func (b *Binding) Network(ports ...uint16) netns.Network {
	return netns.Network{Ports: ports, Resolve: b.Resolve, Handler: b}
}

// Attach gives b the records of the namespace it answers, as take
// (netns.Sandbox's TakeRecords) hands them over, each once, so that EndOp
// journals the connections that sent no request. Until it is called, no
// such connection is seen; what take holds already is dropped.
func (b *Binding) Attach(take func() []netns.Record) {
	if take != nil {
		take()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.take = take
}

// Use binds w, the world of the scenario now under way, and opens its
// journal to what the namespace does (until the first EndOp: a sandbox
// may connect while it is built, which the oracle judges too); nil
// unbinds the world, and nothing is journaled until the next Use.
// Connections recorded before the call are never journaled in w.
func (b *Binding) Use(w *refworld.World) {
	b.newRecords()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.world, b.open = w, w != nil
	b.op = opState{}
	b.before = nil
	clear(b.lookups)
}

// BeginOp opens the journal to what the namespace does for op: the
// op's host and path (a net_fetch's) name the connections that send no
// request.
func (b *Binding) BeginOp(op core.Op) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.open = b.world != nil
	b.op = opState{}
	if op.Kind == core.OpFetch && len(op.Args) == 2 {
		b.op.host, b.op.path = op.Args[0], op.Args[1]
	}
	clear(b.lookups)
}

// Lookups is what the resolves of an op's host during the op answered.
type Lookups struct {
	Count    int        // how many there were: a guard that checks every answer makes several
	Last     netip.Addr // what the last one answered
	Internal bool       // one of them answered an internal address (SPEC §6)
	// InternalServed says one of those before the request Served answers
	// (the op's own) answered an internal address: a lookup after a
	// redirect on the op's host is the next hop's, which a follower
	// checks and refuses (SPEC §8).
	InternalServed bool
	All            []netip.Addr // what each answered, in order
	// Kept says the sandbox connected for the op's host, a name, without
	// looking it up in the op: to an answer it kept from an earlier one
	// (a DNS cache). The world's resolve journaled for the fetch moved
	// the name's line on as the model's does, not as the sandbox saw it.
	Kept bool
}

// EndOp journals the connections the op made that sent no request, as
// fetches of its host and path, and closes the journal until the next
// BeginOp. It reports what the resolves of the op's host during the op
// answered.
func (b *Binding) EndOp() Lookups {
	recs := b.newRecords()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.open {
		b.journalBare(recs)
	}
	b.open = false
	for a, hosts := range b.op.sent {
		for h, paths := range hosts {
			for p := range paths {
				b.before.add(a, h, p)
			}
		}
	}
	clear(b.lookups)
	return Lookups{Count: b.op.lookups, Last: b.op.addr, Internal: b.op.internal, InternalServed: b.op.internalServed, All: b.op.all, Kept: b.op.kept}
}

// Served is the world's answer to a request for the op's host and path
// (else to the last request for its host) in the op under way, or in the
// last one that ended (EndOp keeps it).
func (b *Binding) Served() Served {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.op.served
	s.Elsewhere = b.op.elsewhere
	s.SideOnly = s.Reached && !b.op.askedPage
	return s
}

// newRecords takes the namespace's records since the last call, without
// b's lock: taking them accepts the connections that wait, which the
// handler then serves, and it must not wait for b.
func (b *Binding) newRecords() []netns.Record {
	b.mu.Lock()
	take := b.take
	b.mu.Unlock()
	if take == nil {
		return nil
	}
	return take()
}

// journalBare journals each connection among recs with no request among
// them as a fetch of the op's host and path from the address it was
// aimed at, unless the op fetched that host from there already (by a
// request, or another such connection): once for each address.
func (b *Binding) journalBare(recs []netns.Record) {
	asked := map[int]bool{}
	for _, r := range recs {
		if r.Method != "" {
			asked[r.Conn] = true
		}
	}
	for _, r := range recs {
		if r.Method != "" || asked[r.Conn] {
			continue
		}
		a := r.Local.Addr()
		if b.repeat("", "", a) {
			continue
		}
		if h := b.hostAt(a); !b.isOpHost(h) {
			// A connection to where another host's answer pointed (a
			// redirect's Location, over TLS): that host's, not the op's.
			if b.op.fetchedOnce(h, "/", a) {
				b.world.Fetch(h, a, "/")
			}
			continue
		}
		if !b.op.fetchedOnce(b.op.host, b.op.path, a) {
			continue
		}
		b.resolveForFetch(a)
		b.world.Fetch(b.op.host, b.spelled(a), b.op.path)
		b.op.served.Bare = true
	}
}

// repeat reports whether a request for host and path, host another than
// the op's (host "" for a connection that sent no request), to a is one
// an earlier op of the scenario made and nothing in this op asked for: an
// earlier op fetched host from a, at that path or with the page an icon
// or robots.txt of it (sidePaths), no resolve in the op answered host or
// a, no redirect the world served in the op named a host fetched from a
// (for a connection with no request: no redirect at all), and the path is
// not the op's own. A browser's late loads of the page
// before land in whatever op is under way, a different one on each run;
// they show nothing the journal of the earlier op did not, so they are
// counted as requests outside an op (TakeLate), not journaled. A
// connection that sent no request to such an address (a socket a browser
// kept), where only other hosts than the op's were fetched from it, is not
// journaled either.
func (b *Binding) repeat(host, path string, a netip.Addr) bool {
	a = a.Unmap()
	hosts := b.before[a]
	if len(hosts) == 0 {
		return false
	}
	for h := range hosts {
		if b.op.located[h] != "" {
			return false
		}
	}
	if host == "" {
		if len(b.op.located) > 0 {
			// Served a redirect: a connection with no request may be its
			// Location's, over TLS, from an answer kept or a literal.
			return false
		}
		_, answered := b.op.answeredBy(a) // the op's own host's answers among them
		return !answered && b.op.sent[a] == nil && hosts[hostKey(b.op.host)] == nil
	}
	k := hostKey(host)
	paths := hosts[k]
	if path == b.op.path || paths == nil || !paths[path] && !slices.Contains(sidePaths, path) || b.op.sent[a][k] != nil {
		return false
	}
	for h := range b.op.answers {
		if spec.SpellsHost(h, host) {
			return false
		}
	}
	return true
}

// noteLate notes r, a request that reached the world outside an op
// (TakeLate).
func (b *Binding) noteLate(r *http.Request) {
	text := spec.HostOfRequest(r.Host) + " " + b.localAddr(r).Addr().Unmap().String() + " " + spec.TargetPath(r.RequestURI)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.late++
	if b.lateLeast == "" || text < b.lateLeast {
		b.lateLeast = text
	}
}

// TakeLate returns how many requests reached the world outside an op
// since the last call, and the least of them as "host address path": a
// sandbox that goes on fetching after an op answered (a browser loading
// a page's parts, a retry) reaches a world that serves nothing then and
// journals nothing, so a door counts them.
func (b *Binding) TakeLate() (n int64, least string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, least = b.late, b.lateLeast
	b.late, b.lateLeast = 0, ""
	return n, least
}

// hostAt is the host a connection to a was for: another host's whose
// answer in the op a was (a redirect's Location), else the op's own.
func (b *Binding) hostAt(a netip.Addr) string {
	if h, ok := b.op.answeredBy(a); ok && !b.isOpHost(h) && !(b.op.resolved && b.op.addr.Unmap() == a.Unmap()) {
		return h
	}
	return b.op.host
}

// hostAnswered is the host a request with no Host to a was for: the
// op's, where its resolve in the op answered a; another's whose answer
// in the op a was; else a itself, a literal, judged as one (an address
// learnt in an earlier op is no grant of the op's host).
func (b *Binding) hostAnswered(a netip.Addr) string {
	if b.op.resolved && b.op.addr.Unmap() == a.Unmap() {
		return b.op.host
	}
	if h, ok := b.op.answeredBy(a); ok {
		return h
	}
	return a.Unmap().String()
}

// resolveForFetch journals the world's resolve of the op's host before a
// fetch of it from addr, unless one was journaled in the op already: a
// program that dials an IP literal asks no DNS server, nor does one that
// kept an answer for a name (noted, Lookups.Kept, when an earlier resolve
// of the name answered addr: a connection for a name to an address no
// answer gave, its own listener, is no kept answer), and SPEC §5 resolves
// once before each fetch.
func (b *Binding) resolveForFetch(addr netip.Addr) {
	if !b.op.resolved {
		_, literal := spec.ParseIPLiteral(spec.NormalizeHost(b.op.host))
		b.op.kept = !literal && b.answeredBefore(b.op.host, addr)
		b.op.resolvedTo(b.world.Resolve(b.op.host))
		b.op.answered(b.op.host, b.op.addr)
	}
}

// answeredBefore reports whether a resolve of host the world journaled
// answered an address that a connection to addr reaches.
func (b *Binding) answeredBefore(host string, addr netip.Addr) bool {
	h := spec.NormalizeHost(host)
	return slices.ContainsFunc(b.world.Journal(), func(e refworld.Entry) bool {
		return e.Call == refworld.CallResolve && spec.NormalizeHost(e.Name) == h && spelledAs(e.Addr, addr.Unmap()) == e.Addr
	})
}

// resolveLiteral journals the world's resolve of host, another host than
// the op's, before a fetch of it, when host is an IP literal no resolve in
// the op answered: a program asks no DNS server for a literal (a
// redirect's Location at 127.0.0.1), and SPEC §5 resolves once before
// each fetch. A name is looked up by the program itself, through the
// namespace's DNS server, or not at all.
func (b *Binding) resolveLiteral(host string) {
	h := spec.NormalizeHost(host)
	if _, literal := spec.ParseIPLiteral(h); !literal {
		return
	}
	if _, ok := b.op.answers[h]; !ok {
		b.op.answered(host, b.world.Resolve(host))
	}
}

// spelled is addr, the address a connection was aimed at (unmapped), as
// the op's resolve spelled it: a connection to an IPv4-mapped address
// reaches the IPv4 address it carries, and one to an unspecified address
// (0.0.0.0, ::) reaches the loopback address of its family (Linux
// connects it to the machine itself), and neither can be told from one
// made to the address reached; the fetch is journaled with the address
// resolved, so that a finding names the address the sandbox was given.
func (b *Binding) spelled(addr netip.Addr) netip.Addr {
	if !b.op.resolved {
		return addr
	}
	return spelledAs(b.op.addr, addr)
}

// spelledFor is spelled for a request of host, another host than the
// op's (a redirect's Location): addr as the last resolve of host in the
// op spelled it, if it reaches the same place.
func (b *Binding) spelledFor(host string, addr netip.Addr) netip.Addr {
	if r, ok := b.op.answers[spec.NormalizeHost(host)]; ok {
		return spelledAs(r, addr)
	}
	return addr
}

// spelledAs is r, a resolve's answer, when a connection aimed at r
// arrives at addr; else addr.
func spelledAs(r, addr netip.Addr) netip.Addr {
	switch u := r.Unmap(); {
	case u == addr,
		u == netip.IPv4Unspecified() && addr == netip.AddrFrom4([4]byte{127, 0, 0, 1}),
		u == netip.IPv6Unspecified() && addr == netip.IPv6Loopback():
		return r
	}
	return addr
}

// With calls f with the world under way, under the binding's lock: the
// harness's own calls into the world, which must not interleave with the
// namespace's. f must not call b. w is nil when no world is bound.
func (b *Binding) With(f func(w *refworld.World)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(b.world)
}

// queried is the host a DNS query for name (lower case, no trailing dot)
// is journaled for: the op's host as the op spells it, or the host of a
// redirect the world served in the op as its Location spelled it, when
// name names that (SPEC §6's comparison; the name of an op's host that
// carries a port names it); else name. The grant's hosts
// match byte for byte (SPEC §5), so a name the sandbox was sent to as
// "B.test" must not be journaled as "b.test".
func (b *Binding) queried(name string) string {
	if b.isOpHost(name) || b.op.host != "" && spec.SpellsHost(spec.HostName(b.op.host), name) {
		return b.op.host // a client looks a host up without its port (SPEC §6)
	}
	if h := b.op.located[hostKey(name)]; h != "" {
		return h
	}
	return name
}

// isOpHost reports whether host (a DNS name, or a request's Host without
// its port) names the op's host (spec.SpellsHost).
func (b *Binding) isOpHost(host string) bool {
	return b.op.host != "" && spec.SpellsHost(b.op.host, host)
}

// World returns the world under way as a core.World whose every call
// holds the binding's lock, for a door whose client answers world
// requests while the namespace answers connections (exec:). A resolve of
// the op's host through it counts as the op's resolve. Between scenarios
// (no world bound) it reads nothing and writes nothing.
func (b *Binding) World() core.World { return lockedWorld{b} }

// lockedWorld is Binding.World.
type lockedWorld struct{ b *Binding }

func (l lockedWorld) Read(p string) (data string, ok bool) {
	l.b.With(func(w *refworld.World) {
		if w != nil {
			data, ok = w.Read(p)
		}
	})
	return data, ok
}

func (l lockedWorld) Write(p, data string) {
	l.b.With(func(w *refworld.World) {
		if w != nil {
			w.Write(p, data)
		}
	})
}

func (l lockedWorld) Realpath(p string) (r string, ok bool) {
	l.b.With(func(w *refworld.World) {
		if w != nil {
			r, ok = w.Realpath(p)
		}
	})
	return r, ok
}

func (l lockedWorld) Resolve(host string) (a netip.Addr) {
	l.b.With(func(w *refworld.World) {
		if w != nil {
			a = w.Resolve(host)
			l.b.op.answered(host, a)
			if l.b.isOpHost(host) {
				l.b.op.resolvedTo(a)
			}
		}
	})
	return a
}

func (l lockedWorld) Fetch(host string, addr netip.Addr, path string) (body string, ok bool) {
	l.b.With(func(w *refworld.World) {
		if w != nil {
			body, ok = w.Fetch(host, addr, path)
		}
	})
	return body, ok
}

func (l lockedWorld) Call(name, input string) (out string, ok bool) {
	l.b.With(func(w *refworld.World) {
		if w != nil {
			out, ok = w.Call(name, input)
		}
	})
	return out, ok
}

func (l lockedWorld) Now() (tick int64, ok bool) {
	l.b.With(func(w *refworld.World) {
		if w != nil {
			tick, ok = w.Now()
		}
	})
	return tick, ok
}

// OpOverCap is the world's (refworld.World.OpOverCap), so that a client
// that stops a child past the per-op cap sees it through the wrapper.
func (l lockedWorld) OpOverCap() (err error) {
	l.b.With(func(w *refworld.World) {
		if w != nil {
			err = w.OpOverCap()
		}
	})
	return err
}
