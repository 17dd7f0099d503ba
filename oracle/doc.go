// Package oracle judges a capability sandbox on a scenario: it runs the
// scenario's ops on the sandbox over a world the harness owns, and checks
// the invariants of SPEC §8 after every op and after the whole run.
//
// There is one way to check a scenario, Check, and one for campaigns, a
// Checker, which judges scenario after scenario with the same hang bound
// (Options). Both return Findings: the invariant violated (an ID), the
// step, and what was observed, in words. Invariants returns the catalogue;
// Coverage counts what the checks exercised, per attack class.
//
// # The invariants
//
// The catalogue, in its order (SPEC §8; ID.String is the stable name):
//
//   - no-effect-on-denial: a denial, unknown_op, malformed_op or a max_ops
//     or max_wall halt adds nothing to the journal (a denial on the
//     resolved path keeps its realpath entry) and changes no VFS content; a
//     max_output_bytes halt adds only the effect that produced the bytes
//     (a fetch's: resolves and fetches, as an allowed fetch may make them,
//     judged by confinement and no-internal-egress), and returns no data.
//   - confinement: every journal entry is authorized by the grant: reads
//     and writes of the path really reached, under their roots without
//     traversal; realpaths of a path that passed its op's allow-list (or,
//     while the sandbox is built, either allow-list); resolves and fetches
//     of granted hosts; calls of granted tools.
//   - no-internal-egress: no fetch goes to an internal address; each
//     fetch uses the address the last resolve of its host before it, in
//     the same op, answered (names compared as SPEC §6 does); and a host
//     fetched is not looked up again before a fetch used its last answer,
//     nor more often than it is fetched, when its lookups answered more
//     than one address (a rebinding window).
//   - halt-latched: after the first hard result every result is that same
//     hard kind, and usage, clock reads and the journal stop.
//   - charge-before-dispatch: every op past the halt gate is counted, and
//     op max_ops+1 halts max_ops whatever came before.
//   - output-bounded: the bytes returned in data never total more than
//     max_output_bytes.
//   - verdict-matches-model: each result (kind, hard, data) and the usage
//     after it (ops, wall, output) equal those of an independent model of
//     SPEC §5, and an allowed write leaves its data in the file the model
//     writes.
//   - replay-deterministic: replaying the scenario on a fresh world gives
//     an identical trace: results, usage, journal. The two builds'
//     entries are compared with each other, each step's with the same
//     step's of the other run.
//   - grant-immutable: the grant reads the same after the run as before
//     (each list the same entries, in any order), whatever was done to the
//     values it handed out.
//   - total: every op yields a result: no panic, no hang (an op that does
//     not return within Options.Timeout), in the run or in its replay.
//
// Each invariant is proven by a test that feeds the oracle a sandbox
// violating exactly that one.
//
// A sandbox may ask its world things while it is built, before its first
// op (an MCP filesystem server resolves its allowed directories at start).
// Those entries belong to the open, never to step 1: they are held to the
// grant (confinement, no-internal-egress) as findings at step 0, and
// replay-deterministic compares them with the replay's build.
//
// # What the oracle trusts
//
// The oracle never takes the sandbox's word for what it did. It trusts:
//
//   - the world's journal: the world is the harness's (core's reference
//     world, or a process or a disk the harness observes), and every call
//     the sandbox makes into it is journaled there, with the VFS content
//     fingerprinted after each op;
//   - its own model of SPEC §5 for what each result and the usage after it
//     must be: a decision table over its own reading of the world (files,
//     links followed at most 40 deep, routes, DNS answered in turn, a tick
//     clock), sharing with core only the test for a ".." segment, the
//     reading of an IPv4 literal and the table of internal address ranges,
//     so that a misreading of the SPEC in one shows up as a disagreement
//     with the other;
//   - the scenario's grant, validated by core.NewGrant, for what is
//     authorized;
//   - the sandbox's Grant view only for grant-immutable: it is read before
//     the run, written into as a hostile caller would, and read again;
//   - the sandbox's Usage only to compare it with the model's.
//
// A sandbox that panics, fails or does not return is judged on what the
// journal shows up to then, and the run ends with a total finding.
package oracle
