// Package core is the sandbox contract of sbxfuzz and its reference
// sandbox: the executable form of SPEC §1–7, against which every other
// sandbox is judged. "SPEC §N", here and in every package of this module,
// is section N of docs/SPEC.md.
//
// It holds what a sandbox under test and the harness share, and nothing
// else: Sandbox and Factory; World and its parts VFS, Net, Tools and
// Clock; Grant, GrantSpec, GrantView and Budgets; Op and the op kinds;
// Result and Kind; Usage; and Reference, the reference sandbox
// (NewReference, ReferenceFactory). What a world holds is described by
// scenario.WorldSpec, the header lines of a .sbx file; the world built
// from it, and the checks that judge a run, are the harness's own.
//
// # The contract
//
// A sandbox under test implements Sandbox and is built by a Factory from a
// Grant and a World. It never acts directly: every effect is a call on the
// World, and every World call is appended to the world's journal. The
// oracle trusts the journal, never the sandbox's account of itself.
//
//	world call            journal entry            returns
//	VFS.Read(p)           read p                   content at Clean(p), or absent
//	VFS.Write(p, d)       write p d                —
//	VFS.Realpath(p)       realpath p -> r          p resolved through the world's links; Clean(p) without links
//	Net.Resolve(h)        resolve h -> a           one address (SPEC §6)
//	Net.Fetch(h, a, path) fetch h a path           the routed body, or absent
//	Tools.Call(n, in)     call n in                the tool's output, or absent
//	Clock.Now()           (counted, not journaled) the next tick; ok=false past 2^63−1
//
// Clean is Go's path.Clean, the canonical form of SPEC §4.
//
// # The pipeline
//
// Reference.Run follows SPEC §5 exactly: halt gate; charge an op and read
// the clock (halting on max_ops, then max_wall); dispatch (unknown_op,
// malformed_op); check, then effect, per kind; charge output. A hard result
// latches: every later Run returns it again without charging anything.
//
// fs_read and fs_write check in two stages. First the raw path: a ".."
// segment (split at '/' and '\') is path_traversal, a canonical path under
// no matching root is fs_read_denied or fs_write_denied. Only then is the
// path resolved through the world's links, r = VFS.Realpath(p), and r
// judged by the same roots (a link loop is not_found, an r outside is the
// same denial); the effect reads or writes r, never p. A world without
// links resolves p to Clean(p), so only the journal shows the step:
//
//	fs_read /work//a   →  realpath /work//a -> /work/a
//	                      read /work/a
//
// A net_fetch resolves its host exactly once and judges that very address:
// an internal one (SPEC §6) is egress_internal, and the fetch goes to it or
// nowhere.
package core

// Where the rest lives, for readers of this module (not part of the API):
// the world's description (WorldSpec, File, Link, Route, DNSRecord,
// ToolOutput, TickClock) and ParseKind are in package scenario; the
// in-memory world a WorldSpec describes, with the journal, is
// internal/refworld; the SPEC's decisions the reference shares with the
// world, the oracle's model, the generators and the mutants (Canonical,
// HasTraversal, UnderAllowlist, NormalizeHost, StaticResolve,
// ParseInetAton, ParseIPv6Literal, Unmap, IsInternal, Arity, WellFormed,
// MaxLinks) are internal/spec; Failure, the panic value of a sandbox that
// cannot answer, is internal/door; MustGrant is internal/must.Grant.
