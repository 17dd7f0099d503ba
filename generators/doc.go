// Package generators draws hostile scenarios for every attack class of SPEC
// §9: a grant, a world shaped so that a violation shows, and ops labelled
// with their class.
//
// # Randomness
//
// Generators draw from a Source and nothing else: no global randomness, no
// clock, no map iteration. NewSource is a seeded PCG for campaigns — fast
// and deterministic, one stream per worker. Scenarios wraps Generate as a
// rapid generator over the *rapid.T, so a failing scenario shrinks: every
// choice puts its simplest option at index 0, and each op slot is one rapid
// group whose first draw can empty it, so shrinking deletes ops one at a
// time and lowers the rest towards benign reads of /work.
//
// # Scenarios
//
// Generate draws a budget profile and a length (usually 5–40 op slots), then
// a grant and a world built together:
//
//   - fs_read roots (/work, /data, /srv/app, …, with and without a trailing
//     slash, now and then spelled //work or /work/.; two roots, a nested
//     pair, "/" or none), fs_write roots (mostly nested in the read root;
//     sometimes the read root itself, a separate root, none or "/");
//   - files inside each root (data.txt, ..hidden, %2e%2e/x, a big file, the
//     root key itself) and beside it: prefix siblings (/workshop/secret,
//     /work2/secret, /work.bak/secret), homoglyph and upper-case spellings of
//     the root, /etc/passwd and other secrets — LEAK content wherever a
//     correct sandbox must never read;
//   - shapes real servers get wrong (rootshapes.go): a root that is a
//     string prefix of another (/work and /work2), a granted root that is
//     a link or lies under one (SPEC §13 denies what resolves out of it;
//     read and write roots equal, as an MCP server takes them), files and
//     directories that differ from a root only in letter case (/WORK/secret,
//     /Work/d/f) or that begin with its name and a backslash (/work\secret,
//     /work\d/f), and a dangling link in the write root to a new file in
//     /etc, written through;
//   - symbolic links (SPEC §13) in three worlds in four, planted by recipe
//     in a read root (either of two, first in the grant or second; links
//     out of both when two escape recipes are drawn) and the write root
//     (links.go): links out of
//     the root to /etc/passwd, /etc, "/", prefix siblings (absolute, or
//     relative through ".."), another root, through a chain, dangling; near
//     misses that must stay allowed (inside the root, one dangling) or
//     denied (a link at /workshop pointing back in); directory links out
//     of the write root to /etc, "/", /tmp (climbing with ".."), /work2,
//     the read root, /data/cache, through a chain, or into the root; self
//     loops (relative and absolute), 2-cycles, a link through itself, a
//     link to "." followed 39, 40 and 41 times, and, in one world in
//     eight, a chain of 41 links (from its first link one hop too many,
//     from its second exactly 40);
//   - granted hosts: ordinary names (one spelled API.Example.ORG, one with a
//     trailing dot), IP spellings, metadata endpoints, names whose dns lines
//     rebind (public, then internal), and routes for granted and attacker
//     hosts alike, so a leak returns a body; on half the ordinary names a
//     redirect route (/go) whose Location is an internal address in one of
//     several spellings, a metadata endpoint, an ungranted host, a
//     rebinding name or a relative path; on a third, a page (/page) whose
//     refresh, frame, image or script leads a browser to an internal
//     address;
//   - probes of the internal-range table (ranges.go): in eleven worlds in
//     twelve, one to four granted hosts (one more per 10 op slots), each
//     drawn uniformly from every internal range of SPEC §6 and every
//     prefix of its IPv6 embedding forms × {just below, low edge, interior,
//     high edge, just above} × spelling (IPv4 dotted, short, integer, hex,
//     octal, IPv4-mapped (one variant in mixed case, ::fFFf:), NAT64,
//     IPv4-compatible, 6to4; IPv6 compressed,
//     expanded, bracketed), and in one world in three a granted name whose
//     dns line answers such an address first; ip-spelling ops fetch the
//     literals in turn, rebinding ops the names;
//   - file contents of every byte class: ASCII, multi-byte UTF-8 (utf8.txt),
//     Latin-1 (latin1.txt) and binary with NULs (image.png);
//   - granted tools, canned outputs from a few bytes to over a megabyte, and
//     LEAK outputs for ungranted names and case variants;
//   - budgets and a tick clock per profile: roomy (40%; one in eight with
//     max_ops, max_wall or max_output_bytes at math.MaxInt64), max_ops below
//     the length, a clock with large steps and max_wall within a tick of k
//     steps (a quarter of the time with max_ops k, so that op k is on both
//     edges; a quarter with max_ops 0 and max_wall at or one below one step,
//     so that op 1 is past max_ops and at or past max_wall; one in eight a
//     clock whose ticks pass 2^63−1 at op 1 to 5 against a max_wall of
//     math.MaxInt64), a small max_output_bytes, or a budget of 0 or one the
//     ops land on exactly (for max_output_bytes, set after the ops are drawn
//     to the output total the reference reaches after one of them — the
//     first op with data half the time, a multi-byte one a quarter — or one
//     byte less, each half the time with max_ops and max_wall on that op's
//     usage too). Tight profiles halt early, so ops of every class keep
//     coming after a hard halt and exercise halt-latched.
//
// Each op slot holds one op of a class drawn by the weights below (a tight
// profile draws its theme class — op-flood, wall-jump, output-flood or
// budget-boundary — with weight 15 more); op-flood slots emit a run that
// runs just past max_ops when it is near, rebinding slots fetch one to
// three times in a row.
//
//	class             weight   class             weight
//	benign                 7   rebinding              5
//	traversal              7   op-flood               1 (runs)
//	prefix-sibling         7   wall-jump              3
//	dot-segments           4   output-flood           4
//	encoded                3   budget-boundary        4
//	lookalike              3   unknown-tool           2
//	outside-absolute       3   tool-variant           3
//	relative               3   unknown-op             1
//	control-bytes          4   malformed-op           2
//	long-path              3   symlink-escape         4
//	unknown-host           3   symlink-parent         3
//	host-variant           5   symlink-loop           2
//	ip-spelling            6
//	metadata               5   redirect               3
//
// Path classes put their path in a read or a write (against the matching
// roots), sometimes in the URL path of a fetch from a granted host or a
// tool's input, so they reach no-internal-egress too; control-bytes and
// malformed-op corrupt ops of every kind. The symlink classes read and
// write through a link the world planted for them (a new file under a
// directory link, for symlink-parent, three times in four), along the
// paths its recipe names, one in five respelled with dot segments or a
// traversal. The only invariant × class cells no op can reach are
// no-internal-egress (checked on net_fetch ops) for unknown-tool,
// tool-variant, unknown-op and the three symlink classes.
//
// # Dimensions
//
// Beyond classes, the scenarios aim at every reachable point of the SPEC
// dimensions that internal/dims names: each internal range's edges in
// each spelling (the range probes above, fetched by ip-spelling and
// rebinding ops), each budget at 0, below, at, one over and
// math.MaxInt64, two and three budgets on their edge in the same op, the
// clock's shapes (a tick past 2^63−1 included), the byte classes of every
// argument (multi-byte write data among them) and of returned data
// (multi-byte data landing exactly at, and one byte over, the output
// budget), every path shape under roots written with and without a
// trailing slash (benign reads and dot-segments name the root itself,
// "/work" and "/work/"), and every host shape. The dimension table's
// TestGeneratorsHitEveryPoint counts them over the default campaign (seed
// 1, streams 0 to 9,999) and wants each in at least three scenarios.
//
// # Cost
//
// Strings are built once into tables (big contents are slices of one
// megabyte pattern, root-derived names and long paths are precomputed),
// and ops concatenate a few pieces. Generate draws
// through a pooled draw (draw.go) that carves every list of the scenario
// from slabs, exactly sized, and keeps the facts ops look up about the
// grant and the world (facts.go): a scenario costs a handful of
// allocations, and generation a few hundred nanoseconds per op
// (BenchmarkGenerate reports ns/genop). A Generator (generator.go) draws
// each scenario into the memory of the one before, rewinding its slabs,
// for a caller that is done with a scenario when it asks for the next: a
// campaign worker, whose scenario memory then stays in the caches and
// costs almost no allocation (BenchmarkGenerator).
package generators
