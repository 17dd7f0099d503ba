package sbxnet

import (
	"net"
	"net/netip"
	"slices"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// Bounds of what one request may send the endpoint.
const (
	maxHeaderBytes = 64 << 10 // request line and headers
	maxBodyBytes   = 1 << 20  // a request body, read and discarded
)

// Network is a world's network as a Go program sees a real one: a
// resolver and a dialer whose connections reach in-memory HTTP endpoints.
// The zero Network is not usable: build one with New.
type Network struct {
	world core.Net

	worldMu sync.Mutex // serializes the calls into world: a core.World is not safe for concurrent use

	// settling is held from a connection's settling (link.settled) to the
	// end of its journaling (journalBare, endOp, answerRequest): the op's
	// end must not pass a connection marked settled but not yet journaled,
	// or its journal would land in the next op. It guards link.settled.
	settling sync.Mutex

	mu     sync.Mutex
	open   map[net.Conn]*link // the endpoints' ends of the connections still served
	made   int                // the connections made so far, for link.seq
	closed bool
	served sync.WaitGroup // one per connection being served
	// opEnds says the world tells the end of each op (OnEndOp): a
	// connection the op left open without a request is journaled there.
	opEnds bool
}

// link is what the network knows of a connection it serves.
type link struct {
	a    netip.Addr
	name string // the name it was dialled by, "" for an address
	op   int    // opMark's when it was made
	seq  int    // the order it was made in, among the network's
	// settled says what the connection is journaled as is decided: it
	// sent a request, or it was journaled as one that sent none
	// (journalBare). Under Network.settling.
	settled bool
}

// opEnder is a world that tells the end of each op, as the harness's world
// does (refworld.World.OnEndOp).
type opEnder interface{ OnEndOp(func()) }

// New returns the network of w: its resolver and its dialer answer from w
// and journal into it.
func New(w core.Net) *Network {
	n := &Network{world: w, open: make(map[net.Conn]*link)}
	if e, ok := w.(opEnder); ok {
		e.OnEndOp(n.endOp)
		n.opEnds = true
	}
	return n
}

// Close closes every connection the network still serves and waits until
// the goroutines that served them have returned. Dials after Close fail.
// It always returns nil.
func (n *Network) Close() error {
	n.mu.Lock()
	n.closed = true
	for c := range n.open {
		c.Close()
	}
	n.mu.Unlock()
	n.served.Wait()
	return nil
}

// peeker is a world that can tell its next answer for a host without
// giving it, as the harness's world can.
type peeker interface {
	PeekResolve(host string) netip.Addr
}

// resolveFamily asks the world for host, journaled, unless network names
// one family ("ip4", "ip6") and the world's next answer for host is not
// a record of that family as the DNS server of SPEC §14 sends it (an A
// for an IPv4 address, an AAAA for any other, an IPv4-mapped one
// included): then it asks nothing and answers the zero Addr.
func (n *Network) resolveFamily(network, host string) netip.Addr {
	n.worldMu.Lock()
	defer n.worldMu.Unlock()
	if p, ok := n.world.(peeker); ok && network != "ip" && !recordFits(network, p.PeekResolve(host)) {
		return netip.Addr{}
	}
	return n.world.Resolve(host)
}

// recordFits reports whether a is answered to a query of network's family
// ("ip4": an A record, "ip6": an AAAA): an IPv4-mapped address is an AAAA
// record, as it is written.
func recordFits(network string, a netip.Addr) bool {
	if network[len(network)-1] == '4' {
		return a.Is4()
	}
	return !a.Is4()
}

// fetch asks the world for the route of host and path, journaled with the
// address the connection was dialled to.
func (n *Network) fetch(host string, a netip.Addr, path string) (string, bool) {
	n.worldMu.Lock()
	defer n.worldMu.Unlock()
	return n.world.Fetch(host, a, path)
}

// opWorld is a world that can tell the op under way, as the harness's
// world can (refworld.World.BeginOp): its host, and whether it resolved a
// host already.
type opWorld interface {
	OpHost() string
	ResolvedInOp(host string) bool
}

// requestHost is the host a request is answered and journaled for, as
// the network namespace has it (SPEC §14): the request's Host without its
// port and an IPv6 literal's brackets (spec.HostOfRequest), and, when
// that names the op's host (spec.SpellsHost: a Go client must write the
// op's host ::1 as "[::1]"), the op's host as the op spells it. Over a
// world that cannot tell its op, the former.
func (n *Network) requestHost(hostport string) string {
	h := spec.HostOfRequest(hostport)
	o, ok := n.world.(opWorld)
	if !ok {
		return h
	}
	n.worldMu.Lock()
	op := o.OpHost()
	n.worldMu.Unlock()
	if op != "" && (spec.SpellsHost(op, hostport) || spec.SpellsHost(op, h)) {
		return op // the raw Host first: an op's host may hold a port ("api.test:8080")
	}
	return h
}

// resolveLiteral journals the world's resolve of a request's host
// (requestHost) when it is an IP literal the op under way has not
// resolved: a client dials a literal as it is, asking no one (Go's dialer
// does, and so does a guard that reads the address out of a URL and
// checks it), while SPEC §5 resolves once before each fetch; the network
// namespace journals a literal's resolve the same way (SPEC §14). Over a
// world that cannot tell its op, nothing.
func (n *Network) resolveLiteral(host string) {
	o, ok := n.world.(opWorld)
	if _, literal := spec.ParseIPLiteral(spec.LookupKey(host)); !ok || !literal { // a literal with a port is dialled as the literal
		return
	}
	n.worldMu.Lock()
	defer n.worldMu.Unlock()
	if !o.ResolvedInOp(host) {
		n.world.Resolve(host)
	}
}

// opJournal is a world that shows the journal of the op under way, as
// the harness's world does: the hosts whose answers a connection may have
// followed.
type opJournal interface {
	OpJournal() []refworld.Entry
}

// answersInOp returns, for each host (normalized) a resolve in the op
// under way answered, the host as the last resolve of it spelled it and
// what that answered. Over a world that cannot tell, nothing. The caller
// holds worldMu.
func (n *Network) answersInOp() map[string]refworld.Entry {
	w, ok := n.world.(opJournal)
	if !ok {
		return nil
	}
	last := map[string]refworld.Entry{}
	for _, e := range w.OpJournal() {
		if e.Call == refworld.CallResolve {
			last[spec.NormalizeHost(e.Name)] = e
		}
	}
	return last
}

// answeredBy is a host other than the op's whose last answer in the op
// was a, the first in name order, as the namespace picks it.
func answeredBy(answers map[string]refworld.Entry, op string, a netip.Addr) (string, bool) {
	var hosts []string
	for h, e := range answers {
		if e.Addr.Unmap() == a.Unmap() && (op == "" || !spec.SpellsHost(op, e.Name)) {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return "", false
	}
	slices.Sort(hosts)
	return answers[hosts[0]].Name, true
}

// opAnswered reports whether the op's host (op, not "") was resolved in
// the op, its last answer a.
func opAnswered(answers map[string]refworld.Entry, op string, a netip.Addr) bool {
	e, ok := answers[spec.NormalizeHost(op)]
	return op != "" && ok && e.Addr.Unmap() == a.Unmap()
}

// opHostLocked is the host of the op under way, "" when the world cannot
// tell or the op is no fetch. The caller holds worldMu.
func (n *Network) opHostLocked() string {
	if o, ok := n.world.(opWorld); ok {
		return o.OpHost()
	}
	return ""
}

// opAnswers is the op's host and the answers of the op under way
// (answersInOp), read at once: the op cannot change between the two.
func (n *Network) opAnswers() (string, map[string]refworld.Entry) {
	n.worldMu.Lock()
	defer n.worldMu.Unlock()
	return n.opHostLocked(), n.answersInOp()
}

// hostAnswered is the host a request with no Host to a was for, as the
// network namespace has it (SPEC §14): the op's, where its resolve in the
// op answered a; another's whose last answer in the op a was; else a
// itself, a literal, judged as one (an address learnt in an earlier op is
// no grant of the op's host).
func (n *Network) hostAnswered(a netip.Addr) string {
	op, answers := n.opAnswers()
	if opAnswered(answers, op, a) {
		return op
	}
	if h, ok := answeredBy(answers, op, a); ok {
		return h
	}
	return a.Unmap().String()
}

// bareHost is the host a connection to a that sent no request was for,
// as the network namespace has it (SPEC §14): the name it was dialled by
// (requestHost); else another host's whose answer in the op a was (a
// redirect's Location), unless the op's host answered a too; else the
// op's own host, for it left all the same; else, the op being no fetch
// or the world unable to tell, a itself, a literal.
func (n *Network) bareHost(a netip.Addr, name string) string {
	if name != "" {
		return n.requestHost(name)
	}
	op, answers := n.opAnswers()
	if h, ok := answeredBy(answers, op, a); ok && !opAnswered(answers, op, a) {
		return h
	}
	if op != "" {
		return op
	}
	return a.Unmap().String()
}

// journalBare journals a connection that ended, or was left open at the
// end of its op, without a request, as the network namespace journals one
// (SPEC §14): a fetch of "/" of its host (bareHost) from its address,
// after the world's resolve of that host unless the op resolved it
// already. (The namespace journals the op's own path for the op's host;
// the world tells no path.) A connection is journaled so once at most; not
// one the network closed itself, at Close; and, over a world that does
// not tell the end of its ops, not one that ends in another op than the op
// it was made in: the op it ends in did not make it, and would be blamed
// for it. (Where the world tells the end of its ops, such a connection was
// journaled at the end of its own, endOp; one made between two ops is
// judged with the next, as whatever a sandbox does between ops is.)
func (n *Network) journalBare(l *link) {
	n.settling.Lock()
	defer n.settling.Unlock()
	n.mu.Lock()
	journal := !n.closed && !l.settled
	l.settled = true
	n.mu.Unlock()
	if journal && (n.opEnds || n.opMark() == l.op) {
		n.journalUnsettled(l)
	}
}

// journalUnsettled journals l as a fetch of "/" of its host (journalBare).
func (n *Network) journalUnsettled(l *link) {
	host := n.bareHost(l.a, l.name)
	n.resolveUnresolved(host)
	n.fetch(host, l.a, "/")
}

// endOp journals the connections still open that have sent no request,
// in the order they were made (journalBare): the world calls it at the
// end of each op, before the harness reads the op's journal, so that a
// connection a sandbox opened to an address and held, unused, past its op
// is judged on the op that made it.
func (n *Network) endOp() {
	n.settling.Lock()
	defer n.settling.Unlock()
	n.mu.Lock()
	var left []*link
	if !n.closed {
		for _, l := range n.open {
			if !l.settled {
				l.settled = true
				left = append(left, l)
			}
		}
	}
	n.mu.Unlock()
	slices.SortFunc(left, func(a, b *link) int { return a.seq - b.seq })
	for _, l := range left {
		n.journalUnsettled(l)
	}
}

// opCounter is a world that numbers its ops, as the harness's world does.
type opCounter interface{ OpSeq() int }

// opMark tells the op under way from another: its number, or -1 over a
// world that cannot tell.
func (n *Network) opMark() int {
	o, ok := n.world.(opCounter)
	if !ok {
		return -1
	}
	n.worldMu.Lock()
	defer n.worldMu.Unlock()
	return o.OpSeq()
}

// resolveUnresolved journals the world's resolve of host unless the op
// under way resolved it already; over a world that cannot tell its op,
// nothing.
func (n *Network) resolveUnresolved(host string) {
	o, ok := n.world.(opWorld)
	if !ok {
		return
	}
	n.worldMu.Lock()
	defer n.worldMu.Unlock()
	if !o.ResolvedInOp(host) {
		n.world.Resolve(host)
	}
}

// locator is a world that can tell whether a route is a redirect, and
// its URL, without journaling, as the harness's world can
// (refworld.World.Location). Over a world without it no route is a
// redirect.
type locator interface {
	Location(host, path string) (url string, ok bool)
}

// location is the URL the route of host and path redirects to, if it is
// a redirect.
func (n *Network) location(host, path string) (string, bool) {
	l, ok := n.world.(locator)
	if !ok {
		return "", false
	}
	n.worldMu.Lock()
	defer n.worldMu.Unlock()
	return l.Location(host, path)
}

// track registers the endpoint's end c of a new connection to a, dialled
// by name, and returns what the network knows of it, or nil after Close.
func (n *Network) track(c net.Conn, a netip.Addr, name string) *link {
	op := n.opMark()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.made++
	l := &link{a: a, name: name, op: op, seq: n.made}
	n.open[c] = l
	n.served.Add(1)
	return l
}

// untrack forgets a connection whose serving goroutine returns.
func (n *Network) untrack(c net.Conn) {
	c.Close()
	n.mu.Lock()
	delete(n.open, c)
	n.mu.Unlock()
	n.served.Done()
}
