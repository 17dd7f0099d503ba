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
//	internal-string-prefixes IPv4 internal ranges as text prefixes ("172.16.", "100.64.", "198.18."): their other /16s are public
//	v6-range-masks           fc00::/7 checked as fd00::/8, fe80::/10 as fe80::/16
//	wall-before-ops          max_wall tested (and the clock read) before max_ops
//	output-in-runes          output charged and reported in code points, not bytes
//	ignores-clock-overflow   a tick past 2^63−1 is taken at its saturated value, not as past every max_wall
//	off-by-one-output        halts max_output_bytes when output lands exactly on the cap
//	budget-plus-one-overflow every budget tested as used >= limit+1, which wraps for math.MaxInt64
//	root-itself-denied       a root written "/work/" is a bare prefix: /work itself is denied
//	host-case-fold           net_hosts matched with strings.EqualFold
//	nat64-prefix-32          64:ff9b::/32 judged by its last 32 bits: the /48 local-use prefix and the /96's neighbours misjudged
//	no-6to4-unmap            2002::/16 judged as itself, never by the IPv4 address in bits 16–47
//	no-compatible-unmap      ::/96 (but :: and ::1) judged as itself, never by the IPv4 address in its last 32 bits
//	nat64-local-use-public   64:ff9b:1::/48 judged as itself, not internal whatever it carries
//	host-final-dots          net_hosts matched with the final dots of both names dropped
//	roots-resolved-at-start  roots resolved through the world's links at build; resolved paths held to those answers
//	later-roots-lexical      links resolved under the first root only; a path under another root checked lexically
//	dotless-names-trusted    a granted name of one label reaches any address it resolves to
//
// Mutant.Dimension names the SPEC dimension whose points expose a defect
// (one of Dimensions()): internal-string-prefixes to host-case-fold, and
// nat64-prefix-32 to host-final-dots, are each written to hide in one
// dimension's points, edges included.
//
// Mutant.RedFlag says, in one sentence, which review red flag of the seed
// notes each defect embodies.
package mutants
