// Package core is sbxfuzz's reference sandbox and its world: the executable
// form of SPEC §1–7, against which every other sandbox is judged. "SPEC
// §N", here and in every package of this module, is section N of
// docs/SPEC.md.
//
// # The contract
//
// A sandbox under test implements Sandbox and is built by a Factory from a
// Grant and a World. It never acts directly: every effect is a call on the
// World, and every World call is appended to the world's journal. The
// oracle trusts the journal, never the sandbox's account of itself.
//
//	world call            journal entry            returns
//	VFS.Read(p)           read p                   content at Canonical(p), or absent
//	VFS.Write(p, d)       write p d                —
//	VFS.Realpath(p)       realpath p -> r          p resolved through the world's links; Canonical(p) without links
//	Net.Resolve(h)        resolve h -> a           one address (SPEC §6)
//	Net.Fetch(h, a, path) fetch h a path           the routed body, or absent
//	Tools.Call(n, in)     call n in                the tool's output, or absent
//	Clock.Now()           (counted, not journaled) the next tick; ok=false past 2^63−1
//
// # The pipeline
//
// Reference.Run follows SPEC §5 exactly: halt gate; charge an op and read
// the clock (halting on max_ops, then max_wall); dispatch (unknown_op,
// malformed_op); check, then effect, per kind; charge output. A hard result
// latches: every later Run returns it again without charging anything.
//
// fs_read and fs_write check in two stages. First the raw path: a ".."
// segment is path_traversal, a canonical path under no matching root is
// fs_read_denied or fs_write_denied. Only then is the path resolved through
// the world's links, r = VFS.Realpath(p), and r judged by the same roots
// (a link loop is not_found, an r outside is the same denial); the effect
// reads or writes r, never p. A world without links resolves p to
// Canonical(p), so only the journal shows the step:
//
//	fs_read /work//a   →  realpath /work//a -> /work/a
//	                      read /work/a
//
// # The world
//
// RefWorld is the reference World, built from a WorldSpec: a flat VFS keyed
// by Canonical path, without links (Realpath answers Canonical(p)); routes keyed by (NormalizeHost(host), path); a DNS
// table keyed by NormalizeHost(host) whose answers cycle; the built-in tools
// "echo" (returns its input) and "summarize" ("summary of N bytes"), which
// canned ToolOutputs override or add to; and a TickClock, whose ticks
// never wrap: one that would pass 2^63−1 is answered with ok=false and
// halts max_wall (SPEC §7). PrepareWorld
// turns a WorldSpec into an immutable WorldTemplate once (paths canonical,
// hosts normalized), and each RefWorld started from it keeps only what
// changed: its writes, DNS cursors, clock and journal. The oracle starts
// two worlds per scenario from one template (the watched run and the
// replay; the oracle's model keeps a world of its own). Its observers — Journal,
// JournalLen, Fingerprint, ClockReads — cost O(1) (Fingerprint hashes what
// the writes changed, relative to the template), so an oracle can look after
// every op; Lookup, PeekResolve, Route and ToolOutput answer without
// journaling, for observers only.
//
// # Helpers
//
// HasTraversal, UnderAllowlist and Canonical are SPEC §4; ParseInetAton,
// ParseIPv6Literal, StaticResolve, Unmap and IsInternal are SPEC §6. Each
// documents the SPEC's examples and is table-tested against them.
package core
