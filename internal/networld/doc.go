// Package networld binds a network namespace (package netns) to the world
// of the scenario under way (SPEC §14, "On the machine, for any
// program"): the namespace's DNS server answers from the world's
// resolver, its listeners answer from the world's routes, and what a
// program in the namespace really did is journaled in the harness's
// world, so that the oracle judges it as it judges any sandbox's journal.
//
// One Binding serves one namespace for its whole life; the harness tells
// it which world is under way (Use) and where each op begins and ends
// (BeginOp, EndOp). Within an op:
//
//   - a DNS query answers the world's next answer for its name when that
//     answer is of the query's family, consuming it (World.Resolve,
//     journaled "resolve h -> a", h the op's host as the op spells it, or a
//     redirect's host as the Location the world served in the op spelled
//     it, when the name is that host: the server reads names folded, and
//     the grant's hosts match byte for byte); else it answers nothing and
//     consumes nothing. The A and AAAA queries of one lookup, in either
//     order, consume one answer between them, as the model's one
//     resolution per op does, and a rebinding line cycles lookup by lookup;
//   - a request is answered by the world's route for its Host (port
//     dropped) and path, journaled "fetch h a path" with a the address the
//     connection was aimed at (unmapped); 404 when there is no route. A
//     redirect route is answered 302 Found with its URL as body and as
//     Location (there with the bytes a header cannot hold, controls and
//     white space, escaped %XX), journaled as any route: a sandbox that
//     follows it makes the next request itself, journaled and judged as
//     any other. Every answer of the world carries the header
//     X-Sbxfuzz-World: 1, so that a door tells it from a proxy's own
//     answer. A CONNECT is answered 405, journaled as a fetch of "/" of
//     the host it names: the world opens no tunnel, but the connection
//     reached the address all the same;
//   - a request for the op's host that no resolve of it preceded in the
//     op (a program dialling an IP literal asks no DNS server) journals
//     the world's resolve of it first, as the model's pipeline does;
//   - a connection that sent no request by the end of the op is journaled
//     as a fetch of the op's host and path from the address it was aimed
//     at: it is egress all the same.
//
// Outside an op (after EndOp, before the next BeginOp or Use) nothing is
// journaled: a query answers nothing and a request 503, so that a late
// straggler never writes into a journal the oracle is reading.
//
// Every access to the world, the harness's own included (With, World), is
// under one mutex: the DNS server and the listeners answer from
// goroutines of their own.
package networld
