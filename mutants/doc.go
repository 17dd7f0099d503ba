// Package mutants is a zoo of sandboxes that are each wrong in exactly one
// way real sandboxes have been wrong. A harness that cannot kill every one
// of them is not testing what it claims to; `sbxfuzz mutants` runs a
// campaign against each, and corpus/mutants/NAME.sbx is a hand-written
// scenario that kills mutant NAME.
//
// Every mutant is the same sandbox: a copy of core.Reference's pipeline
// (SPEC §5) in pipeline.go with one defect switched in, at the one point
// the defect changes, marked "DEFECT name". Built without a defect it
// behaves exactly as the reference does (mutants_test checks this on the
// corpus), so each mutant differs from the reference in exactly one way.
//
//	name                     defect
//	raw-prefix               allow-list by strings.HasPrefix(path, root) on raw strings (the ".." belt stays)
//	no-boundary              allow-list on canonical strings without the root + "/" boundary
//	no-belt                  no ".." segment check: canonicalization only
//	substring-dotdot         any path containing ".." is path_traversal
//	act-then-check-write     resolve, read old content, write, check, write the old content back (or "") on denial
//	read-then-check          VFS.Realpath and VFS.Read before the allow-list checks
//	fetch-then-check         Resolve and Fetch before the grant and internal checks
//	deny-list-egress         refuses a fixed list of bad hosts; every other host is granted
//	lookup-before-allowlist  Resolve before the host grant check
//	no-internal-check        internal addresses are never refused
//	resolve-twice            the internal check sees one answer, Fetch uses a second Resolve
//	no-latch                 a hard result does not set the latch
//	charge-after-dispatch    refused ops get their op charge back
//	output-uncharged-fetch   fetch bodies are not charged to max_output_bytes
//	off-by-one-ops           halts max_ops when ops >= max_ops
//	machine-clock            wall budget from time.Now, a tick read as a second
//	leaky-grant              Grant() returns the slices the checks read
//	zero-means-unlimited     a budget of 0 is no limit
//	halt-gate-charges        a halted sandbox still charges an op and reads the clock
//	malformed-passthrough    only arity is checked: NUL bytes and invalid UTF-8 reach the world
//	no-realpath              lexical checks only, no VFS.Realpath: the effect names p, and the world follows its links
//	realpath-before-check    VFS.Realpath before the lexical checks: refused paths are looked up too
//	unresolved-write         reads resolve as the reference's do; writes check lexically and write p unresolved
//	realpath-unchecked       VFS.Realpath, then the effect on r without the allow-list check on r
//	resolve-parent-only      VFS.Realpath of the parent directory, the last name appended: a link there is followed unchecked
//
// Mutant.RedFlag says, in one sentence, which review red flag of the seed
// notes each defect embodies.
package mutants
