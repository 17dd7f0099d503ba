// Package proc runs sandboxes as supervised child processes: guests that
// are bounded in time and output and cannot outlive the harness, nor can
// anything they start. It is the machinery under both doors to a sandbox
// in another process — sbxfuzz/1 (--sut exec:COMMAND) and MCP (package
// mcp) — and the sbxfuzz/1 protocol on top of it.
//
// # Supervised processes
//
// A Process runs in a process group of its own, killed as a whole. On
// Linux it runs under a supervisor — the harness's own program,
// re-executed — that is the init of a PID namespace of its own where the
// system allows one (in a user namespace for a harness without
// privileges), else a child subreaper: either way every descendant,
// setsid() ones included, dies with it, and it dies with the harness.
// Start takes the strongest isolation that starts. A Process's stdout is
// read through a line bound (proto.MaxLine) by its client; of its stderr
// only the last StderrTail bytes are kept, for the words of a finding;
// Stop closes stdin and kills the group after a wait, Kill at once. A
// caller bounds every exchange with a timer that kills the group, which
// makes a pending read return. Supported says whether the system has
// process groups at all.
//
// # sbxfuzz/1
//
// Sessions is the client of sbxfuzz/1 (SPEC §12): a sandbox in any
// language, driven over its stdin and stdout. The harness keeps the
// world: the child makes every effect through world requests, which the
// client answers from the core.World of the scenario, so the journal stays
// the oracle's ground truth. Every failure of the child — it exits, writes
// a line that is not JSON-RPC, answers with a wrong id or an error, sends
// a world request out of turn, returns an unknown kind, writes a line over
// the size cap, or hangs — becomes a total finding on that op, with the
// tail of its stderr; its process group is killed and a fresh child
// serves the next scenario. Serve is the other side, for a sandbox written
// in Go (sbxfuzz serve).
//
// # In a network of its own
//
// StartNet starts a Process in new user, network, mount and PID namespaces
// (package netns) answered by a netns.Network: every connection it opens
// reaches the harness's listeners. Once a scenario's world has routes,
// Sessions runs its children that way (SPEC §14), each answered by a
// binding to the world of the scenario under way (package networld), with
// SBXFUZZ_NETNS=1 in their environment: a sandbox that fetches with its
// own HTTP client rather than world/fetch is judged on what it really
// connected to. Such a child goes on serving worlds without routes. Where
// the machine cannot make the namespaces, children run as before and one
// line on stderr says, once per run, that their own connections are not
// observed.
package proc
