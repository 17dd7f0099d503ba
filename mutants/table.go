package mutants

// The registry. Red flags quote the seed notes: the Staff Notes' numbered
// code-review red flags ("red flag N") and the Deep Dive's ordering rules
// (check before effect, charge before dispatch, fail closed, latch the
// halt). The five link mutants name instead the real link bugs SPEC §13
// was written against: a link out of an allowed directory, a linked
// parent, a check on one path and a use on another. Each mutant's defect
// is the code marked "DEFECT name" in pipeline.go; corpus/mutants/NAME.sbx
// is its hand-written killer. The third column is the mutant's Dimension:
// the SPEC dimension whose points expose it, or "" when none does alone.
var all = []Mutant{
	{"raw-prefix", "Confines paths with strings.HasPrefix(path, root) on the raw strings, red flag 1 verbatim: no canonicalization and no boundary, so /workshop passes a /work root.", DimPathShape, rawPrefix.factory()},
	{"no-boundary", "Canonicalizes path and root but compares without the root + \"/\" boundary, the boundary half of red flag 1: /workshop/x is under /work/.", DimPathShape, noBoundary.factory()},
	{"no-belt", "Drops the \"..\" segment check and trusts canonicalization alone, the belt-and-suspenders lesson: Clean erases the evidence, so /work/../work/x reaches the world as written.", DimPathShape, noBelt.factory()},
	{"substring-dotdot", "Flags any path containing the substring \"..\" as traversal instead of a segment exactly \"..\", the imprecision the Deep Dive warns teaches the wrong lesson: /work/..hidden is falsely denied.", DimPathShape, substringDotDot.factory()},
	{"act-then-check-write", "Writes first, validates after and rolls back on denial (an empty file where none existed, the VFS having no delete), red flag 3: a rollback is two side effects, not zero.", "", actThenCheckWrite.factory()},
	{"read-then-check", "Reads the file before the allow-list check and discards it on denial, red flag 3's act-then-check: the read already happened.", "", readThenCheck.factory()},
	{"fetch-then-check", "Resolves and fetches before judging egress, red flag 3 on the network: a sandbox that denies the fetch after the packet left has already lost.", "", fetchThenCheck.factory()},
	{"deny-list-egress", "Blocks a fixed list of bad hosts instead of allowing the granted set, red flag 2: the deny-list fails open for every host nobody thought of.", DimHostShape, denyListEgress.factory()},
	{"lookup-before-allowlist", "Resolves every host before checking the grant, red flag 3 in the egress path: the DNS query for a denied host leaves the box and burns rebinding answers.", "", lookupBeforeAllowlist.factory()},
	{"no-internal-check", "Never refuses an internal address once the host name is granted, the SSRF-to-metadata war story: internal ranges must be denied even when a hostname slips through.", DimInternalRange, noInternalCheck.factory()},
	{"resolve-twice", "Checks one DNS answer and fetches with a second resolution, the TOCTOU window behind red flag 3: DNS rebinding makes the address checked not the address used.", "", resolveTwice.factory()},
	{"no-latch", "Returns a hard result without latching it, against \"latch the halt\": a resource breaker that resets itself is a leak a compromised loop retries past.", "", noLatch.factory()},
	{"charge-after-dispatch", "Refunds the op charge of refused ops, against \"charge before dispatch\": probing with denied ops must burn the budget, or the budget is not a budget.", "", chargeAfterDispatch.factory()},
	{"output-uncharged-fetch", "Returns fetch bodies without charging the output budget, red flag 6's meter with a hole: one kind of effect escapes the limit.", "", outputUnchargedFetch.factory()},
	{"off-by-one-ops", "Halts at ops >= max_ops instead of ops > max_ops, a meter that miscounts its own cap: the last permitted op is refused.", DimBudget, offByOneOps.factory()},
	{"machine-clock", "Reads the machine's clock (time.Now) for the wall budget instead of the injected clock, red flag 5: the deadline is ambient, non-deterministic and untestable.", "", machineClock.factory()},
	{"leaky-grant", "Hands out the slices it enforces from through Grant(), red flag 7: a mutable capability object, so a caller that writes into them widens its own authority.", "", leakyGrant.factory()},
	{"zero-means-unlimited", "Reads a budget of 0 as no limit, failing open against the fail-closed rule: the tightest budget becomes the loosest.", DimBudget, zeroMeansUnlimited.factory()},
	{"halt-gate-charges", "Keeps charging ops and reading the clock after it halted, against the halt gate coming first: a dead box must not charge budgets or touch state again.", "", haltGateCharges.factory()},
	{"malformed-passthrough", "Lets NUL bytes and invalid UTF-8 through to the world, failing open on malformed input: checks and world can read such bytes differently (a C API stops at the NUL).", DimBytes, malformedPassthrough.factory()},
	{"no-realpath", "Checks the path as written and never resolves it, the CVE-2025-53109 shape (the MCP reference filesystem server): a link inside an allowed directory reads and writes whatever it points at outside.", "", noRealpath.factory()},
	{"realpath-before-check", "Resolves the path before the lexical allow-list check, lookup-before-allowlist for files: a refused path has already been walked through the world's links, outside the grant.", "", realpathBeforeCheck.factory()},
	{"unresolved-write", "Resolves reads but writes to the path as asked, a fix applied to one effect and not the other: a write through a link inside a write root lands on its target outside.", "", unresolvedWrite.factory()},
	{"realpath-unchecked", "Resolves the path and then acts on the answer without holding it to the roots, a check made on one path and a use made on another: the link's target is trusted because the link's own path passed.", "", realpathUnchecked.factory()},
	{"resolve-parent-only", "Resolves only the parent directory and appends the last name as written, the fix for new files that forgets links: a link in the last component is checked as itself and followed by the effect.", "", resolveParentOnly.factory()},
	// The dimension mutants: each misjudges only points of one SPEC
	// dimension, so only a generator that reaches those points, edges
	// included, kills it.
	{"internal-string-prefixes", "Judges internal IPv4 addresses by string prefixes of their dotted text, one /16 standing for each wider range, the SSRF filter that blocks \"172.16.\" and lets 172.31.255.254 through: a range is a mask, not a spelling.", DimInternalRange, internalStringPrefixes.factory()},
	{"v6-range-masks", "Checks the IPv6 internal ranges with the wrong masks, fd00::/8 for fc00::/7 and fe80::/16 for fe80::/10, the SSRF filter written from memory: fc00:: and fe90::1 are as internal as fd00:: and fe80::1.", DimInternalRange, v6RangeMasks.factory()},
	{"wall-before-ops", "Reads the clock and tests max_wall before max_ops, against the order SPEC §5 fixes: an op past both budgets halts max_wall, and an op past max_ops still reads the clock.", DimBudgetPair, wallBeforeOps.factory()},
	{"output-in-runes", "Meters output in characters (utf8.RuneCountInString) instead of bytes, red flag 6's meter in the wrong unit: multi-byte data is undercharged and a cap in bytes is overrun.", DimBytes, outputInRunes.factory()},
	{"ignores-clock-overflow", "Drops the clock's out-of-range flag and uses the saturated tick, the unchecked-overflow deadline: a tick past 2^63−1 passes a max_wall of math.MaxInt64 instead of halting.", DimClock, ignoresClockOverflow.factory()},
	{"off-by-one-output", "Halts max_output_bytes when output reaches the cap instead of passing it, a meter that miscounts its own cap: output landing exactly on max_output_bytes is refused.", DimBudget, offByOneOutput.factory()},
	{"budget-plus-one-overflow", "Tests each budget as used >= limit+1 in int64, which wraps for math.MaxInt64, failing closed by accident where unlimited was meant: the largest budget halts the first op.", DimBudget, budgetPlusOneOverflow.factory()},
	{"root-itself-denied", "Uses a root written with a trailing slash as a bare prefix of the cleaned path, the boundary fix that forgets equality: /work is outside its own root /work/.", DimPathShape, rootItselfDenied.factory()},
	{"host-case-fold", "Matches hosts against net_hosts case-insensitively, widening an exact allow-list by a convenience: API.internal is fetched on a grant of api.internal, which does not name it byte for byte.", DimHostShape, hostCaseFold.factory()},
	// SPEC §6's embedding forms, §13's links at and above a root, and a
	// link in a root other than the first.
	{"nat64-prefix-32", "Unmaps NAT64 from 64:ff9b::/32, the well-known prefix remembered by its first two groups, instead of the /96 SPEC §6 names: the local-use 64:ff9b:1::/48 carrying a public address is fetched, and 64:ff9b::1:0:0, just outside the /96, is refused.", DimInternalRange, nat64Prefix32.factory()},
	{"no-6to4-unmap", "Never unmaps 6to4, the embedding form a filter written for mapped and NAT64 addresses forgets: 2002:7f00:1:: carries 127.0.0.1 in bits 16–47 and is fetched as the public IPv6 address it looks like.", DimInternalRange, noSixToFourUnmap.factory()},
	{"no-compatible-unmap", "Never unmaps the IPv4-compatible form, as smokescreen's address check lets ::/96 through (docs/real-sandboxes.md): ::a9fe:a9fe carries 169.254.169.254 in its last 32 bits and is fetched as the public IPv6 address it looks like.", DimInternalRange, noCompatibleUnmap.factory()},
	{"host-final-dots", "Matches hosts against net_hosts with the final dots of both names dropped, as smokescreen and squid match their allow-lists (docs/real-sandboxes.md): a grant of api.internal lets \"api.internal.\" and \"api.internal..\" through, names it does not hold byte for byte.", DimHostShape, hostFinalDots.factory()},
	{"nat64-local-use-public", "Judges the NAT64 local-use prefix 64:ff9b:1::/48 as an ordinary IPv6 address, as smokescreen's address check does (docs/real-sandboxes.md): 64:ff9b:1::a00:1, internal whatever it carries, is fetched.", DimInternalRange, nat64LocalUsePublic.factory()},
	{"roots-resolved-at-start", "Resolves its grant roots through the world's links once, at start, and holds every resolved path to those answers, as MCP servers resolve their allowed directories: a root that is a link, or lies under one, stands for the directory outside it leads to.", "", rootsResolvedAtStart.factory()},
	{"later-roots-lexical", "Resolves the links of a path under its first root only and checks a path under any other root lexically, a base directory with extra allowed directories each checked its own way (Mastra's LocalFilesystem and its allowedPaths): a link in the second root reads and writes whatever it points at outside.", "", laterRootsLexical.factory()},
	{"dotless-names-trusted", "Lets a granted name of one label (db, intranet) reach whatever address it resolves to, as a service of the guard's own cluster, the exemption that trusts the network's naming (Aikido Zen skips such names but localhost and metadata): a name the attacker's DNS answers with a private address is fetched.", DimInternalRange, dotlessNamesTrusted.factory()},
	// Spellings of a path that a check and the effect read differently:
	// the check normalizes, the effect gets the path as written.
	{"win-trim-check", "Judges each segment with its trailing dots and spaces trimmed, as Win32 normalizes a path, and acts on the path as written, which a POSIX file system keeps: /work./secret and \"/work /secret\" are judged as /work/secret and reach siblings of the root.", DimPathShape, winTrimCheck.factory()},
	{"query-stripped-check", "Judges the path cut at its first ? or #, read as a URL's query or fragment (url.Parse's Path), and acts on the path as written: /work?/secret and /work#/x are judged as /work and reach siblings of the root.", DimPathShape, queryStrippedCheck.factory()},
	{"first-line-check", "Judges the path by a pattern anchored with ^ and $, which match at any line break (Ruby's anchors, a multi-line regular expression), and acts on the whole path: \"/work\\n/etc/passwd\" passes as /work and reaches a sibling of the root.", DimPathShape, firstLineCheck.factory()},
	{"truncated-belt", "Looks for \"..\" segments in the first 1024 bytes of the path only, a check on a fixed buffer snprintf cut silently, and acts on the whole path: a \"..\" past the buffer reaches the world, and Clean climbs with it.", DimPathShape, truncatedBelt.factory()},
	// Egress shapes a default campaign used not to draw: a Teredo address
	// carrying a public client, zoned IPv6 literals outside link-local, a
	// percent-encoded host, an IDNA A-label asked in Unicode.
	{"teredo-carried", "Judges a Teredo address by the client IPv4 address it carries (the last 32 bits inverted), as address libraries decode Teredo, where SPEC §6 refuses 2001::/32 whatever it carries: 2001:0:4136:e378:8000:63bf:3fff:fdd2, carrying the public 192.0.2.45, is fetched.", DimInternalRange, teredoCarried.factory()},
	{"zone-blinds-prefixes", "Judges the classic ranges with netip's predicates and the rest of SPEC §6 with netip.Prefix.Contains, which is false for any address with a zone: 64:ff9b::a00:1%eth0 and ::ffff:100.64.0.1%eth0 lie in no prefix and are fetched.", DimInternalRange, zoneBlindsPrefixes.factory()},
	{"host-percent-decoded", "Percent-decodes the host before the grant check, as a WHATWG URL parser decodes a host, where SPEC §4 keeps percent-encodings literal and §2 matches hosts byte for byte: api%2einternal passes a grant of api.internal.", DimHostShape, hostPercentDecoded.factory()},
	{"host-idna-encoded", "Writes the host's Unicode labels as IDNA A-labels before the grant check, as a URL parser's host step does, where SPEC §2 matches hosts byte for byte: bücher.example passes a grant of xn--bcher-kva.example.", DimHostShape, hostIDNAEncoded.factory()},
	// Tool names a router respells before the grant check, kinds an
	// adapter takes for the four, and a UTF-8 check without its bound.
	{"tool-unique-prefix", "Takes a tool name that begins exactly one granted name for that tool, as a command line completes unique prefixes (cobra's EnablePrefixMatching), where SPEC §2 matches tool names exactly: summ calls summarize.", "", toolUniquePrefix.factory()},
	{"tool-namespace-stripped", "Judges and calls the tool name after its last \".\", \":\" or \"__\", as routers strip the namespaces models write (functions.echo, default_api:echo, mcp__server__echo), where SPEC §2 matches tool names exactly: functions.echo passes a grant of echo.", "", toolNamespaceStripped.factory()},
	{"tool-call-syntax", "Cuts the tool name at its first \"(\", taking a name written as a call for the function it names, where SPEC §2 matches tool names exactly: echo() and echo(x) pass a grant of echo.", "", toolCallSyntax.factory()},
	{"tool-width-folded", "Folds the fullwidth forms of a tool name to ASCII, the NFKC normalization put in against lookalikes, where SPEC §2 matches tool names exactly, keeping lookalikes literal: ｅｃｈｏ passes a grant of echo.", "", toolWidthFolded.factory()},
	{"tool-percent-decoded", "Percent-decodes the tool name, as a router unescapes the path parameter of /tools/{name}, where SPEC §2 matches tool names exactly, never decoded: %65cho passes a grant of echo.", "", toolPercentDecoded.factory()},
	{"kind-aliases", "Takes the names MCP servers give their tools (read_file, write_file, fetch_url, call_tool) for the four kinds, an adapter's convenience, where SPEC §2 makes any other kind unknown_op: read_file /work/x reads.", "", kindAliases.factory()},
	{"utf8-above-max", "Checks UTF-8 by hand with the overlong and surrogate checks but not RFC 3629's bound, where SPEC §2 makes invalid UTF-8 malformed_op: F4 90 80 80, past U+10FFFF, reaches the world.", "", utf8AboveMax.factory()},
	{"modified-utf8", "Validates arguments as Java's modified UTF-8 (DataInput.readUTF, JNI), which writes NUL as the overlong C0 80, and looks for NUL as a zero byte, then hands the bytes on as they came, where SPEC §2 makes an overlong form invalid UTF-8 and so malformed_op: /work/a\xc0\x80 reaches the world.", "", modifiedUTF8.factory()},
	{"malformed-before-unknown", "Checks every argument's bytes (NUL, UTF-8) before it looks at the kind, as a transport that validates each string of a request first, where SPEC §5 step 3 answers an unknown kind unknown_op whatever its arguments: exec with a NUL in its argument is malformed_op.", "", malformedBeforeUnknown.factory()},
}
