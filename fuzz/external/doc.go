// Package external holds FuzzScenario for every sandbox SBXFUZZ_SUT can
// name: a sandbox in another process ("exec:COMMAND", SPEC §12), on the
// real disk ("osroot") or behind an MCP server ("mcp:COMMAND", SPEC §13),
// as well as the reference and the mutants:
//
//	SBXFUZZ_SUT="exec:python3 $PWD/examples/python/sandbox.py" \
//	  go test -run '^$' -fuzz '^FuzzScenario$' ./fuzz/external
//
// (go test runs the target in this directory, so a command's paths must be
// absolute.) The scenarios of a sandbox with an adapter (osroot, mcp:) go
// through it first, as in a campaign (SPEC §13).
//
// It is package fuzz's FuzzScenario, from the same seed corpus
// (../testdata/fuzz/FuzzScenario), in a binary of its own: the Go fuzzer
// clears, snapshots and compares every coverage counter of a test binary
// around each exec, and the code that drives sandboxes outside the process
// would add about a third to package fuzz's counters (docs/benchmarks.md),
// a cost every exec of the in-process sandboxes would pay. An exec of a
// sandbox in another process costs a round trip per op, which dwarfs the
// counters.
package external
