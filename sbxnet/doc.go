// Package sbxnet hands a Go sandbox a world's network in memory (SPEC §14,
// "In memory, for Go code"): a resolver with the shapes of net.Resolver's
// LookupIP, LookupNetIP and LookupHost, and a DialContext for
// http.Transport, so that an egress guard built on net/http runs over the
// world unchanged and is judged on the connections it really opens, with
// no socket.
//
//	n := sbxnet.New(world)
//	defer n.Close()
//	client := &http.Client{Transport: &http.Transport{DialContext: n.DialContext, DisableKeepAlives: true}}
//
// A guard written as a net.Dialer's Control hook dials with
// n.DialControl(hook) instead, which hands the hook the address each
// connection is about to be made to, as net.Dialer does.
//
// Every lookup asks the world once (core.Net.Resolve, journaled as
// "resolve h -> a"; SPEC §6: dns lines cycling, IP literals, built-in
// names). A dial to an address ("203.0.113.1:80", "[2001:db8::1]:443")
// asks nothing; a dial to a name resolves it first, journaled. The
// connection is one end of a net.Pipe whose other end is an HTTP/1.1
// endpoint for the dialled address: its request is answered from the
// world's routes, selected by the host the request names (its Host
// without the port and an IPv6 literal's brackets) and its path, and
// journaled as "fetch h a path" (core.Net.Fetch) with a the address
// dialled; no route answers 404 Not Found. Every answer says
// "Connection: close", and the endpoint closes the connection after it,
// as the network namespace does (SPEC §14): a client opens a connection,
// and resolves, for each fetch, and never sends a later op's request to
// an address resolved for an earlier one. A connection that ends with no
// request journaled (a TLS hello, which the world never answers, bytes
// of another protocol, a connect and close) reached its address all the
// same, and is journaled as a fetch of "/" from it, as the namespace
// journals one: for the name it was dialled by; else for the host a
// resolve in the op answered that address with, other than the op's;
// else for the op's host; else for the address itself, a literal; with
// the world's resolve of that host first when the op has not resolved it.
// Its Close returns once that is journaled. Over a world that tells the
// end of each op (the harness's: refworld.World.OnEndOp), a connection
// still open at its op's end (or its build's) with no request read yet is
// journaled so there, and a request read on it later is answered 503 and
// journaled nowhere: the op it comes in did not make it. Over the harness's world, which
// can tell the op under way, the network does what the network namespace
// does (SPEC §14): a request that names the op's host is for the op's host
// as the op spells it (a Go client must write the op's host ::1 as
// "[::1]"), and a request for an IP literal the op has not resolved,
// dialled as it is, journals the world's resolve of it first, as SPEC §5
// resolves once before each fetch. A redirect route (a "redirect"
// line) is answered 302 Found with its URL as body and as Location (there
// with the bytes a header value cannot hold, controls and white space,
// escaped %XX), when the world can tell one: a world with a method
// Location(host, path string) (url string, ok bool), as the harness's
// has; over any other world (one a child reaches over sbxfuzz/1, SPEC
// §12, which carries no such call) no route is a redirect, and a redirect
// route answers 200 with its URL, as world/fetch does. The client decides
// whether to follow: http.Client does by default, and its next request is
// one more lookup and fetch, journaled and judged as any other. (Told not
// to, with CheckRedirect, http.Client still parses the Location, and fails
// on one that is no URL; a sandbox that never follows can ask its
// http.Transport directly, as examples/httpguard does.) Every answer
// carries the world's header X-Sbxfuzz-World: 1, as the answers of the
// network namespace do (SPEC §14).
//
// The endpoint reads requests as a Go server does (http.ReadRequest): the
// Host is the request-target's authority when the target is absolute
// ("GET http://h/p"), else the Host header; the path is the
// target's path and query byte for byte, never decoded, as the network
// namespace reads it (SPEC §4). A client that writes url.URL{Path: p} has
// Go escape p ("?" as "%3F"), and asks for another path than p: it sends
// p as it is with url.URL{Opaque: p}, but for a p that begins "//", which
// Go would send as an absolute URL of another host (examples/httpguard's
// setTarget does both). A path with a byte no request line carries (a
// space, a control byte) cannot be asked for at all: a Go sandbox in
// process is handed such an op (SPEC §14), and what it answers is judged
// against a model that fetches it. A request without a Host (HTTP/1.0 allows it) is for the host
// the network namespace reads: the op's, where its resolve in the op
// answered the address dialled; another host's whose last answer in the
// op it was; else the address itself, a literal. A CONNECT is answered
// 405, journaled as a fetch of "/" of the host it names; a request the
// parser refuses is answered 400, journaled as a connection without a
// request. Requests are bounded: 64 KiB of request line and headers
// (else 431, journaled as a connection without a request), 1 MiB of
// body, read and discarded (else 413, the request journaled as any);
// the response is the route's body, written as the world holds it.
//
// World calls made by a Network are serialized by it, and happen on the
// goroutine that drives the connection (http.Transport's own): a sandbox
// that waits for its request, as http.Client.Do does, sees them in order.
// A Network is safe for concurrent use. Close closes every connection and
// waits until the goroutines that served them have returned.
package sbxnet
