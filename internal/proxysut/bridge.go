package proxysut

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/networld"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// chargeOnly is an op of no kind the SPEC knows: the reference charges it
// (ops and wall, SPEC §5 step 2) and refuses it unknown_op, touching
// nothing. The bridge uses it to charge the budgets a proxy does not
// have.
var chargeOnly = core.Op{Kind: "sbxfuzz:charge"}

// closeWaits is how many op timeouts a fetch waits for the proxy: far
// more than the oracle's watchdog waits before it gives up on the op and
// closes the sandbox, so that a proxy that does not answer is a hang the
// campaign confirms, not a failure it takes as it is.
const closeWaits = 4

// exitGrace is how long a fetch whose connection the proxy closed waits
// to see whether the proxy exited: a crash is a failure, not a refusal.
// A variable so that a test can stand for a machine that reaps the proxy
// later than this.
var exitGrace = 20 * time.Millisecond

// bridge is a proxy seen as a core.Sandbox. The harness charges the
// budgets with the reference and answers the ops a proxy is not asked;
// every net_fetch a URL carries goes through the proxy, and the
// namespace's binding journals what the proxy did in the harness's world.
type bridge struct {
	ref     *core.Reference // charges every op; answers the ops the proxy is not asked
	grant   core.Grant
	world   *refworld.World
	px      *proxy
	s       *session
	counts  bool // the bridge counts into the session's tally: a check's run, not its replay
	max     int64
	output  int64
	halted  core.Kind
	timeout time.Duration // one op (Timeouts.Op)

	toolError bool   // the fetch server's tool answered the op under way with an error
	toolText  string // the words of its answer; a proxy's, of an answer of its own (proxyWords)

	answers  map[dnsAnswer]bool // the DNS answers of its world so far (staleFetch)
	lookups  map[string]int     // the model's lookups of each host so far, by the name SPEC §6 looks it up by (spec.LookupKey; modelFetch)
	lookedUp map[string]bool    // the hosts the sandbox looked up in an op so far, by spec.LookupKey
	scanned  int                // the journal entries staleFetch has read

	mu      sync.Mutex // Close comes from the oracle's watchdog while Run may still be going
	conn    net.Conn   // the connection of the fetch under way
	closed  bool
	running bool
}

func newBridge(g core.Grant, w *refworld.World, px *proxy, s *session) *bridge {
	return &bridge{ref: core.NewReference(g, w), grant: g, world: w, px: px, s: s, counts: s.tally.Opened(),
		max: g.Budgets().MaxOutputBytes, timeout: s.timeouts.op(), answers: map[dnsAnswer]bool{}, lookups: map[string]int{}, lookedUp: map[string]bool{}}
}

// Grant implements core.Sandbox: the harness's own copy (a proxy's
// grant cannot be read back).
func (b *bridge) Grant() core.GrantView { return b.grant }

// Usage implements core.Sandbox.
func (b *bridge) Usage() core.Usage {
	u := b.ref.Usage()
	u.Output += b.output
	return u
}

// Close implements io.Closer: the proxy goes back to the session, or,
// closed while a fetch is under way (a hang), is stopped, which ends the
// fetch.
func (b *bridge) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	if b.running {
		b.px.failed.Store(true)
	}
	if b.conn != nil {
		b.conn.Close()
	}
	b.mu.Unlock()
	b.s.tally.Closed()
	b.s.release(b.px)
	return nil
}

func (b *bridge) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// Run implements core.Sandbox.
func (b *bridge) Run(op core.Op) core.Result {
	if b.halted != core.Invalid {
		return core.Result{Kind: b.halted, Hard: true}
	}
	if !carried(op, b.world.Spec()) {
		return b.latch(b.ref.Run(op))
	}
	if r := b.ref.Run(chargeOnly); r.Hard {
		return b.latch(r)
	}
	if !b.enter() {
		return core.Result{Kind: core.EgressDenied} // closed already: no one reads this
	}
	defer b.leave()
	host, path := op.Args[0], op.Args[1]
	if n, first := b.px.bind.TakeLate(); n > 0 && b.counts {
		b.s.tally.Late(n, first)
	}
	b.px.bindTo(b.world)
	model, addr := b.modelFetch(host, path)
	ans, err := b.send(op)
	if b.px.srv == nil {
		b.toolText = proxyWords(ans)
	}
	lookups := b.px.bind.EndOp()
	resolved := lookups.Count > 0
	if resolved {
		b.lookedUp[spec.LookupKey(host)] = true
	}
	served := b.px.bind.Served()
	if served.SideOnly && b.toolError {
		// It read robots.txt and refused the page: no answer for the op.
		served = networld.Served{Bare: served.Bare, Elsewhere: served.Elsewhere}
	}
	if served.Bare && b.counts {
		b.s.tally.Bare()
	}
	if lookups.Kept && b.counts {
		b.s.tally.Kept()
	}
	if err == nil && served.Reached {
		b.px.noteFetched(serverURL(op))
	}
	if b.px.srv != nil && err == nil {
		ans = servedAnswer(served)
	}
	if b.staleFetch() {
		b.s.cachesDNS()
	}
	switch {
	case b.isClosed():
		return core.Result{Kind: core.EgressDenied} // the watchdog gave up on the op: no one reads this
	case err != nil:
		b.px.failed.Store(true)
		panic(&door.Failure{Err: fmt.Errorf("%s: %s %s: %w", b.s.id.name, core.OpFetch, host+" "+path, err)})
	case ans.world && ans.status == http.StatusMethodNotAllowed && b.s.profile.Mode == ModeConnect:
		// The world answers a CONNECT that reaches it 405: the proxy sent
		// it on as a request of its own rather than open a tunnel.
		panic(&door.Failure{Err: fmt.Errorf("%s: the world answered 405 to the CONNECT it passed on as a request: it opens no tunnel (a proxy that does not take CONNECT: give its profile mode absolute)", b.s.id.name)})
	case ans.world && b.px.srv == nil && !served.Reached && !served.Elsewhere && !served.Bare:
		// The answer carries the world's header, but no request of the op
		// reached the world: the proxy's cache of an earlier answer for
		// the URL (from now on every sandbox gets a proxy of its own, and
		// this one is answered as the model does), or one it made up.
		if !b.px.fetchedBefore(serverURL(op)) {
			panic(&door.Failure{Err: fmt.Errorf("%s: answered %d with %s, but no request of the op reached the world, nor did one for the URL before: an answer it made up", b.s.id.name, ans.status, networld.Header)})
		}
		return b.fromCache(host, path, model, addr, lookups)
	case ans.world && lineMoved(model, lookups, served, host):
		// The proxy let the fetch through on answers of its own lookups,
		// every one public, where the model's one lookup answers an
		// internal address: a guard that looks a name up more than once a
		// fetch, each answer checked, moves the name's dns line elsewhere
		// than the model's, and saw nothing to refuse. The model's answer
		// stands in; where it connected is in the journal, judged.
		if b.counts {
			b.s.tally.LineMoved()
		}
		return core.Result{Kind: model}
	case ans.world && served.Redirect:
		// The world answered the op's own request with a redirect route's
		// 302, its body the URL: the fetch's whole answer, as the model's
		// (one request a fetch), whether the proxy relayed the 302 or
		// followed it and relayed the next answer. A proxy that followed
		// is judged on the requests it made for it, journaled.
		b.passed(model)
		return b.deliver(served.Body)
	case ans.world && ans.status == http.StatusOK:
		b.passed(model)
		return b.deliver(ans.body)
	case ans.world && ans.status == 404:
		b.passed(model)
		return core.Result{Kind: core.NotFound}
	case ans.world:
		panic(&door.Failure{Err: fmt.Errorf("%s: the world answered %d through it: no answer a fetch gets", b.s.id.name, ans.status)})
	case !ans.closed && ans.status < 300 && !b.s.profile.refusal(ans.body):
		panic(&door.Failure{Err: fmt.Errorf("%s: answered %d without %s: an answer the world did not give (its body begins %.120q; a page of the proxy's own that refuses goes in its profile's refusals)",
			b.s.id.name, ans.status, networld.Header, ans.body)})
	case b.px.srv != nil && !served.Reached && !served.Bare && !served.Elsewhere && !b.toolError && b.px.fetchedBefore(serverURL(op)):
		// A URL the server fetched before, answered with no error and no
		// request (of any host): from a cache of its own, answered as the model does;
		// from now on every sandbox gets a server of its own.
		return b.fromCache(host, path, model, addr, lookups)
	case b.px.srv != nil && served.Bare:
		// A fetch server connected and sent no request (a TLS hello to
		// port 443), then failed: the fetch left, whatever it said.
		b.passed(model)
		if model == core.EgressDenied {
			return core.Result{Kind: model}
		}
		return b.asModel(host, path, addr, resolved, true)
	}
	// A fetch journaled from the model's address must follow a lookup
	// that answered it: not after several, nor after one of a line the
	// proxy moved on in an op before.
	return b.refused(host, path, model, addr, lookups, served.Bare || lookups.Count > 1 || resolved && lookups.Last != addr, served)
}

// fromCache answers a fetch the sandbox answered from a cache of its own
// (no request of the op reached the world) as the model does, and gives
// every sandbox from now on a proxy or server of its own.
func (b *bridge) fromCache(host, path string, model core.Kind, addr netip.Addr, lookups networld.Lookups) core.Result {
	b.s.cachesAnswers()
	if b.counts {
		b.s.tally.Cached()
	}
	resolved := lookups.Count > 0
	if model == core.OK || model == core.NotFound {
		return b.asModel(host, path, addr, resolved, lookups.Count > 1 || resolved && lookups.Last != addr)
	}
	return b.refused(host, path, model, addr, lookups, lookups.Count > 1 || resolved && lookups.Last != addr, networld.Served{})
}

// lineMoved reports whether a fetch the proxy let through, which the
// model refuses as internal (model), followed lookups of the op's host in
// the op, its own and not an answer it kept, that answered no internal
// address.
//
// A lookup after the op's request, when the world answered it with a
// redirect to the op's host, is the next hop's (SPEC §8): a follower that
// checks it and refuses saw its internal answer in time, and is judged
// by the lookups before.
func lineMoved(model core.Kind, lookups networld.Lookups, served networld.Served, host string) bool {
	internal := lookups.Internal
	if served.Redirect && spec.StaysOnHost(served.Body, host) {
		internal = lookups.InternalServed
	}
	return model == core.EgressInternal && lookups.Count > 0 && !lookups.Kept && !internal
}

// passed counts a fetch the proxy let through: one the model allows
// (a run where none was is one that judged refusals only), or one the
// model refuses (a run where most were is one of a proxy that keeps no
// allow-list, or was not given the grant).
func (b *bridge) passed(model core.Kind) {
	switch {
	case !b.counts:
	case model == core.OK || model == core.NotFound:
		b.s.tally.Passed(core.OpFetch)
	case door.AllowListRefusal(model):
		b.s.tally.Refused(core.OpFetch, true)
	}
}

func (b *bridge) latch(r core.Result) core.Result {
	if r.Hard {
		b.halted = r.Kind
	}
	return r
}

// send asks the proxy for op's fetch on a connection of its own, while
// the binding journals what the proxy does.
func (b *bridge) send(op core.Op) (answer, error) {
	if b.px.srv != nil {
		return answer{}, b.askServer(op)
	}
	deadline := time.Now().Add(closeWaits * b.timeout)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	b.px.bind.BeginOp(op)
	b.px.ops++
	conn, err := b.px.sb.Dial(ctx, "tcp", b.px.listen.String())
	if err != nil {
		return answer{}, b.unreachable(err)
	}
	if !b.hold(conn) {
		return answer{}, nil
	}
	defer b.hold(nil)
	ans, err := b.px.fetch(conn, op.Args[0], op.Args[1], deadline)
	if err == nil && ans.closed && b.exited(ctx) {
		return answer{}, b.px.exitError()
	}
	return ans, err
}

// exited reports whether the proxy, which closed a connection without an
// answer, did so by exiting. Its status may come late on a busy machine,
// and a proxy that refuses by closing is still there: one that no longer
// keeps a connection open is waited for as long as an op may take.
func (b *bridge) exited(ctx context.Context) bool {
	if b.px.exitedWithin(exitGrace) {
		return true
	}
	if b.px.keepsOpen(ctx) {
		return false
	}
	return b.px.exitedWithin(b.timeout)
}

// enter notes a fetch under way, so that a Close meanwhile (the
// watchdog's, on a hang) stops the proxy rather than hand it to the next
// sandbox; it reports false when the bridge is closed already.
func (b *bridge) enter() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running = !b.closed
	return b.running
}

func (b *bridge) leave() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.running = false
}

// hold makes conn the connection Close closes, or forgets it (nil),
// closing it; it reports false, having closed conn, when the bridge is
// closed already.
func (b *bridge) hold(conn net.Conn) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if conn == nil {
		if b.conn != nil {
			b.conn.Close()
		}
		b.conn = nil
		return true
	}
	if b.closed {
		conn.Close()
		return false
	}
	b.conn = conn
	return true
}

// unreachable is the error of a proxy that could not be connected to.
func (b *bridge) unreachable(err error) error {
	grace := exitGrace
	if errors.Is(err, netns.ErrGone) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		// The proxy has exited, or is being stopped (a connection it had
		// not accepted yet is reset as it exits), or no longer listens
		// where it listened at its start: its status is certain to come,
		// however late a busy machine reaps it, unless it closed its
		// listening socket and lives on.
		grace = b.timeout
	}
	if b.px.exitedWithin(grace) {
		return b.px.exitError()
	}
	return fmt.Errorf("connecting to it at %s: %v", b.px.listen, err)
}

// modelFetch is the kind SPEC §5 gives a fetch of host and path in the
// world as it is now, without its effect and without a journal entry
// (egress_denied, egress_internal, not_found or ok), and the address the
// model's one lookup of the fetch answers, which it takes: the model
// resolves a host once a fetch, so its answer is its count of lookups
// along the host's DNS line, whatever the proxy looked up (a guard that
// checks every answer looks a host up more often, and moves the world's
// line on further).
func (b *bridge) modelFetch(host, path string) (k core.Kind, addr netip.Addr) {
	if !b.grant.MayFetch(host) {
		return core.EgressDenied, netip.Addr{}
	}
	h := spec.LookupKey(host)
	b.withWorld(func(w *refworld.World) {
		addr = w.ResolveAt(host, b.lookups[h])
		switch _, routed := w.Route(host, path); {
		case spec.IsInternal(addr):
			k = core.EgressInternal
		case !routed:
			k = core.NotFound
		default:
			k = core.OK
		}
	})
	b.lookups[h]++
	return k, addr
}

// refused answers a fetch the proxy refused. Where the model refuses it
// too, the model's kind (and, when the model resolved and the proxy did
// not, the model's resolve, so the world's dns lines move on as the
// model's do). Where the model allows it, the proxy is stricter (SPEC
// §14): counted under its reason and answered as the model does, unless
// the profile promises to let it through, then denied and judged. addr
// is the model's answer for host (modelFetch); journaled says the op's
// journal holds what would make a fetch the model's answer adds wrong (a
// connection that sent no request, a lookup that answered another
// address); served is what the world answered the proxy in the op: a
// proxy that fetched another host instead (Elsewhere), or that was
// answered a redirect and refused after it (Redirect), is counted under
// a reason of its own.
func (b *bridge) refused(host, path string, model core.Kind, addr netip.Addr, lookups networld.Lookups, journaled bool, served networld.Served) core.Result {
	resolved := lookups.Count > 0
	said := b.said()
	if said != "" && b.counts {
		b.s.tally.Said(said)
	}
	if model == core.OK || model == core.NotFound {
		seen := addr // what the proxy was answered, when it looked the host up
		if !resolved {
			seen = netip.Addr{}
		}
		reason := door.NetReasonSeen(host, seen, lookups.All)
		if reason == door.ReasonRefusedAllowed && !resolved && b.lookedUp[spec.LookupKey(host)] {
			reason = door.ReasonKeptAnswer // it refused an answer it kept from an earlier op
		}
		if served.Reached && served.Redirect {
			reason = door.ReasonFollowedRedirect // it followed the world's redirect, and refused after it
		}
		if lookups.Internal {
			reason = door.ReasonInternalAnswer // it saw an answer the model's one lookup did not get
		}
		if served.Elsewhere && !served.Reached {
			reason = door.ReasonAnotherHost // it refused nothing: it went elsewhere
		}
		if door.Promised(b.s.profile.Promises, reason) {
			return core.Result{Kind: core.EgressDenied}
		}
		if b.counts {
			b.s.tally.Stricter(reason, judge.FormatOp(core.Op{Kind: core.OpFetch, Args: []string{host, path}}), said)
		}
		return b.asModel(host, path, addr, resolved, journaled)
	}
	if b.counts && door.AllowListRefusal(model) {
		b.s.tally.Refused(core.OpFetch, false)
	}
	if model == core.EgressInternal && !resolved {
		b.withWorld(func(w *refworld.World) { w.Resolve(host) })
		if b.counts {
			b.s.tally.Filled()
		}
	}
	return core.Result{Kind: model}
}

// said is what a fetch server's tool answered the op under way, or a
// proxy's answer of its own (proxyWords), its directory's path cut out (a
// place of its own each run): the words of a refusal, which a replay
// shows and a campaign keeps with an example of a stricter reason.
func (b *bridge) said() string {
	text := b.toolText
	if b.px.dir != "" {
		text = strings.ReplaceAll(text, b.px.dir, "$DIR")
	}
	return strings.TrimSpace(text)
}

// asModel answers a fetch the proxy could not be judged on as the
// model's pipeline does, from addr, the model's answer for host: resolve
// once (when the proxy did not), egress_internal, or the route's body or
// not_found, journaled as the model journals them. Where the proxy
// connected for the op without a request, that connection is journaled
// as the op's fetch already, and where a lookup answered it another
// address than addr, a fetch from addr would read as one from an answer
// not the last: then (journaled) no fetch is journaled.
func (b *bridge) asModel(host, path string, addr netip.Addr, resolved, journaled bool) core.Result {
	var (
		body  string
		found bool
	)
	b.withWorld(func(w *refworld.World) {
		switch {
		case journaled:
			body, found = w.Route(host, path)
			return
		case !resolved:
			journaled = w.Resolve(host) != addr // the world's line ahead of the model's
		}
		switch {
		case spec.IsInternal(addr):
		case journaled:
			body, found = w.Route(host, path)
		default:
			body, found = w.Fetch(host, addr, path)
		}
	})
	switch {
	case spec.IsInternal(addr):
		return core.Result{Kind: core.EgressInternal}
	case !found:
		return core.Result{Kind: core.NotFound}
	}
	return b.deliver(body)
}

// withWorld calls f with the bridge's world under the lock of the
// proxy's binding, so that the harness's own calls never interleave with
// the namespace's.
func (b *bridge) withWorld(f func(w *refworld.World)) {
	b.px.bind.With(func(*refworld.World) { f(b.world) })
}

// deliver is SPEC §5 step 5 for a body the proxy returned: charged
// against max_output_bytes, or the halt.
func (b *bridge) deliver(data string) core.Result {
	n := int64(len(data))
	if b.Usage().Output+n > b.max {
		b.halted = core.MaxOutputBytes
		return core.Result{Kind: core.MaxOutputBytes, Hard: true}
	}
	b.output += n
	return core.Result{Kind: core.OK, Data: data}
}
