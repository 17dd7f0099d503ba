package mutants

// The registry. Red flags quote the seed notes: the Staff Notes' numbered
// code-review red flags ("red flag N") and the Deep Dive's ordering rules
// (check before effect, charge before dispatch, fail closed, latch the
// halt). The five link mutants name instead the real link bugs SPEC §13
// was written against: a link out of an allowed directory, a linked
// parent, a check on one path and a use on another. Each mutant's defect
// is the code marked "DEFECT name" in pipeline.go; corpus/mutants/NAME.sbx
// is its hand-written killer.
var all = []Mutant{
	{"raw-prefix", "Confines paths with strings.HasPrefix(path, root) on the raw strings, red flag 1 verbatim: no canonicalization and no boundary, so /workshop passes a /work root.", rawPrefix.factory()},
	{"no-boundary", "Canonicalizes path and root but compares without the root + \"/\" boundary, the boundary half of red flag 1: /workshop/x is under /work/.", noBoundary.factory()},
	{"no-belt", "Drops the \"..\" segment check and trusts canonicalization alone, the belt-and-suspenders lesson: Clean erases the evidence, so /work/../work/x reaches the world as written.", noBelt.factory()},
	{"substring-dotdot", "Flags any path containing the substring \"..\" as traversal instead of a segment exactly \"..\", the imprecision the Deep Dive warns teaches the wrong lesson: /work/..hidden is falsely denied.", substringDotDot.factory()},
	{"act-then-check-write", "Writes first, validates after and rolls back on denial (an empty file where none existed, the VFS having no delete), red flag 3: a rollback is two side effects, not zero.", actThenCheckWrite.factory()},
	{"read-then-check", "Reads the file before the allow-list check and discards it on denial, red flag 3's act-then-check: the read already happened.", readThenCheck.factory()},
	{"fetch-then-check", "Resolves and fetches before judging egress, red flag 3 on the network: a sandbox that denies the fetch after the packet left has already lost.", fetchThenCheck.factory()},
	{"deny-list-egress", "Blocks a fixed list of bad hosts instead of allowing the granted set, red flag 2: the deny-list fails open for every host nobody thought of.", denyListEgress.factory()},
	{"lookup-before-allowlist", "Resolves every host before checking the grant, red flag 3 in the egress path: the DNS query for a denied host leaves the box and burns rebinding answers.", lookupBeforeAllowlist.factory()},
	{"no-internal-check", "Never refuses an internal address once the host name is granted, the SSRF-to-metadata war story: internal ranges must be denied even when a hostname slips through.", noInternalCheck.factory()},
	{"resolve-twice", "Checks one DNS answer and fetches with a second resolution, the TOCTOU window behind red flag 3: DNS rebinding makes the address checked not the address used.", resolveTwice.factory()},
	{"no-latch", "Returns a hard result without latching it, against \"latch the halt\": a resource breaker that resets itself is a leak a compromised loop retries past.", noLatch.factory()},
	{"charge-after-dispatch", "Refunds the op charge of refused ops, against \"charge before dispatch\": probing with denied ops must burn the budget, or the budget is not a budget.", chargeAfterDispatch.factory()},
	{"output-uncharged-fetch", "Returns fetch bodies without charging the output budget, red flag 6's meter with a hole: one kind of effect escapes the limit.", outputUnchargedFetch.factory()},
	{"off-by-one-ops", "Halts at ops >= max_ops instead of ops > max_ops, a meter that miscounts its own cap: the last permitted op is refused.", offByOneOps.factory()},
	{"machine-clock", "Reads the machine's clock (time.Now) for the wall budget instead of the injected clock, red flag 5: the deadline is ambient, non-deterministic and untestable.", machineClock.factory()},
	{"leaky-grant", "Hands out the slices it enforces from through Grant(), red flag 7: a mutable capability object, so a caller that writes into them widens its own authority.", leakyGrant.factory()},
	{"zero-means-unlimited", "Reads a budget of 0 as no limit, failing open against the fail-closed rule: the tightest budget becomes the loosest.", zeroMeansUnlimited.factory()},
	{"halt-gate-charges", "Keeps charging ops and reading the clock after it halted, against the halt gate coming first: a dead box must not charge budgets or touch state again.", haltGateCharges.factory()},
	{"malformed-passthrough", "Lets NUL bytes and invalid UTF-8 through to the world, failing open on malformed input: checks and world can read such bytes differently (a C API stops at the NUL).", malformedPassthrough.factory()},
	{"no-realpath", "Checks the path as written and never resolves it, the CVE-2025-53109 shape (the MCP reference filesystem server): a link inside an allowed directory reads and writes whatever it points at outside.", noRealpath.factory()},
	{"realpath-before-check", "Resolves the path before the lexical allow-list check, lookup-before-allowlist for files: a refused path has already been walked through the world's links, outside the grant.", realpathBeforeCheck.factory()},
	{"unresolved-write", "Resolves reads but writes to the path as asked, a fix applied to one effect and not the other: a write through a link inside a write root lands on its target outside.", unresolvedWrite.factory()},
	{"realpath-unchecked", "Resolves the path and then acts on the answer without holding it to the roots, a check made on one path and a use made on another: the link's target is trusted because the link's own path passed.", realpathUnchecked.factory()},
	{"resolve-parent-only", "Resolves only the parent directory and appends the last name as written, the fix for new files that forgets links: a link in the last component is checked as itself and followed by the effect.", resolveParentOnly.factory()},
}
