package dims

import (
	"math"
	"net/netip"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/iprange"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestRangesAreSPECSection6: every range the table names is internal, the
// addresses just outside the IPv4 ones that are not internal are not, and
// each range's edges are what its prefix says.
func TestRangesAreSPECSection6(t *testing.T) {
	for _, r := range ranges {
		first, last := iprange.Edges(r)
		if !spec.IsInternal(first) || !spec.IsInternal(last) {
			t.Errorf("%s: edges %s, %s are not all internal", r, first, last)
		}
		if !r.Contains(first) || !r.Contains(last) || first.Compare(last) > 0 {
			t.Errorf("%s: edges %s..%s wrong", r, first, last)
		}
		if p := first.Prev(); p.IsValid() && r.Contains(p) || last.Next().IsValid() && r.Contains(last.Next()) {
			t.Errorf("%s: an address just outside is inside", r)
		}
	}
	for _, s := range []string{"9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "198.17.255.255", "198.20.0.0", "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fec0::"} {
		if spec.IsInternal(netip.MustParseAddr(s)) {
			t.Errorf("%s is internal: the range edges are off", s)
		}
	}
}

// TestPositions: an address is placed against a range by its edges, and
// the points the catalog marks unreachable have no address.
func TestPositions(t *testing.T) {
	cases := []struct {
		addr, rng string
		pos       int
		ok        bool
	}{
		{"172.16.0.0", "172.16.0.0/12", Low, true},
		{"172.20.1.1", "172.16.0.0/12", Interior, true},
		{"172.31.255.255", "172.16.0.0/12", High, true},
		{"172.15.255.255", "172.16.0.0/12", Below, true},
		{"172.32.0.0", "172.16.0.0/12", Above, true},
		{"172.33.0.0", "172.16.0.0/12", 0, false},
		{"::", "::/128", Low, true},
		{"::", "::1/128", Below, true},
		{"::2", "::1/128", Above, true},
		{"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe80::/10", High, true},
		{"fec0::", "fe80::/10", Above, true},
		{"255.255.255.255", "240.0.0.0/4", High, true},
	}
	for _, c := range cases {
		pos, ok := Position(netip.MustParseAddr(c.addr), netip.MustParsePrefix(c.rng))
		if pos != c.pos || ok != c.ok {
			t.Errorf("Position(%s, %s) = %d, %v; want %d, %v", c.addr, c.rng, pos, ok, c.pos, c.ok)
		}
	}
	var unreachable []string
	for _, p := range catalog {
		if p.Unreachable != "" && (strings.HasSuffix(p.Name, ", dotted") || strings.HasSuffix(p.Name, ", expanded")) {
			unreachable = append(unreachable, p.Group+" "+strings.TrimSuffix(strings.TrimSuffix(p.Name, ", dotted"), ", expanded"))
		}
	}
	want := "0.0.0.0/8 just below|240.0.0.0/4 just above|::/128 just below|::/128 interior|::1/128 interior|ff00::/8 just above|::/96 just below"
	if got := strings.Join(unreachable, "|"); got != want {
		t.Errorf("unreachable range points:\n got %s\nwant %s", got, want)
	}
	// An address with no group of zeros has no spelling with "::".
	var uncompressed []string
	for _, p := range catalog {
		if p.Unreachable != "" && strings.HasSuffix(p.Name, ", compressed") && !strings.Contains(p.Unreachable, "no address comes") && !strings.Contains(p.Unreachable, "interior") {
			uncompressed = append(uncompressed, p.Group+" "+strings.TrimSuffix(p.Name, ", compressed"))
		}
	}
	want = "fc00::/7 just below|fc00::/7 high edge|fe80::/10 just below|fe80::/10 high edge|ff00::/8 just below|ff00::/8 high edge|" +
		"64:ff9b::/96 just below|2002::/16 just below|2002::/16 high edge|64:ff9b:1::/48 high edge|2001::/32 just below"
	if got := strings.Join(uncompressed, "|"); got != want {
		t.Errorf("uncompressible range points:\n got %s\nwant %s", got, want)
	}
}

func TestSpelling(t *testing.T) {
	cases := map[string]int{
		"10.1.2.3": iprange.Dotted, "10.1": iprange.Short, "10.1.2": iprange.Short, "167837955": iprange.Integer, "0xa010203": iprange.Hex, "0xa.1.2.3": iprange.Hex,
		"012.1.2.3": iprange.Octal, "0": iprange.Integer, "0.0.0.0": iprange.Dotted, "::ffff:10.1.2.3": iprange.Compressed, "[::ffff:a01:203]": iprange.Bracketed,
		"64:ff9b::a01:203": iprange.Compressed, "0:0:0:0:0:ffff:a01:203": iprange.Expanded, "fe80::1": iprange.Compressed, "fe80:0:0:0:0:0:0:1": iprange.Expanded, "[fe80::1]": iprange.Bracketed,
		"metadata.google.internal": iprange.Name, "api.internal": iprange.Name, "10.1.2.3 x": iprange.Dotted,
	}
	for h, want := range cases {
		if got := Spelling(h); got != want {
			t.Errorf("Spelling(%q) = %s, want %s", h, spellingNames[got], spellingNames[want])
		}
	}
}

func TestByteClass(t *testing.T) {
	cases := map[string]int{"": ASCII, "abc": ASCII, "é": MultiByte, "a\xffb": InvalidUTF8, "a\x00é": NUL, "\xff\x00": NUL}
	for s, want := range cases {
		if got := ByteClass(s); got != want {
			t.Errorf("ByteClass(%q) = %s, want %s", s, byteClassNames[got], byteClassNames[want])
		}
	}
}

func TestClassifyPath(t *testing.T) {
	roots := []string{"/work/", "/data", "/work/out/"}
	cases := []struct {
		p            string
		shape        int
		slash, named bool
	}{
		{"/work", PathRootItself, true, true},
		{"/work/", PathRootSlash, true, true},
		{"/work/a", PathChild, true, true},
		{"/work/a/b/c", PathDeep, true, true},
		{"/work/a/", PathTrailing, true, true},
		{"/work/./a", PathDotSegments, true, true},
		{"/work//a", PathDotSegments, true, true},
		{"/work/.", PathDotSegments, true, true},
		{"//work", PathDotSegments, true, true},
		{"/./work/x", PathDotSegments, true, true},
		{"/work/../etc", PathTraversal, true, true},
		{`/work\..\etc`, PathBackslash, true, true},
		{`/work/a\..x/../b`, PathTraversal, true, true}, // the ".." segment is bounded by "/"
		{`/data/x\..`, PathBackslash, false, true},
		{"/tmp/../work/x", PathOutside, false, false},
		{"/work/..hidden", PathDotDotName, true, true},
		{"/work/%2e%2e/x", PathPercent, true, true},
		{"/work/\uff0e\uff0e/x", PathLookalike, true, true},
		{"/workshop/x", PathSibling, true, true},
		{"/work/outfile", PathChild, true, true}, // under /work/, not a sibling of /work/out/
		{"/work/out/x", PathChild, true, true},
		{"/work/out", PathRootItself, true, true},
		{"/data.bak", PathSibling, false, true},
		{"/data", PathRootItself, false, true},
		{"/", PathAncestor, true, true},
		{"/etc/passwd", PathOutside, false, false},
		{"work/x", PathRelative, false, false},
		{"", PathEmpty, false, false},
	}
	for _, c := range cases {
		shape, slash, named := ClassifyPath(c.p, roots)
		if shape != c.shape || named != c.named || named && slash != c.slash {
			t.Errorf("ClassifyPath(%q) = %s %v %v; want %s %v %v", c.p, pathShapeNames[shape], slash, named, pathShapeNames[c.shape], c.slash, c.named)
		}
	}
	// Under a root of "/", every absolute path is named by it; a root
	// spelled "/work/." or "//work" is the root /work.
	for p, want := range map[string]int{"/": PathRootItself, "/etc/passwd": PathChild, "/a/b/c/d": PathDeep, "/x/../y": PathTraversal} {
		if shape, slash, named := ClassifyPath(p, []string{"/"}); shape != want || !named || !slash {
			t.Errorf("ClassifyPath(%q, /) = %s %v %v; want %s", p, pathShapeNames[shape], slash, named, pathShapeNames[want])
		}
	}
	for _, r := range []string{"/work/.", "//work"} {
		if shape, _, named := ClassifyPath("/work/x", []string{r}); shape != PathChild || !named {
			t.Errorf("ClassifyPath(/work/x, %s) = %s %v; want child", r, pathShapeNames[shape], named)
		}
	}
}

func TestClassifyHost(t *testing.T) {
	granted := []string{"api.internal", "10.0.0.1", "0xc0.0.0.255"}
	cases := map[string]int{
		"api.internal": HostGranted, "10.0.0.1": HostGranted, "API.internal": HostCase, "api.internal.": HostTrailingDot,
		"api.internal..": HostTwoDots, "0XC0.0.0.255": HostCase, "api.internal:443": HostPort, "user@api.internal": HostUserinfo,
		"api.internal@evil.com": HostGrantedAt, " api.internal": HostSpace, "x.api.internal": HostSubdomain,
		"api.internal.evil.com": HostPrefix, "127.1": HostIPv4, "[::1]": HostIPv6, "a.localhost": HostLocalhost,
		"metadata.google.internal": HostMetadata, "": HostEmpty, "evil.com": HostOther,
		"10.0.0.1.": HostTrailingDot, "api%2einternal": HostEncoded,
	}
	for h, want := range cases {
		if got := ClassifyHost(h, granted); got != want {
			t.Errorf("ClassifyHost(%q) = %s, want %s", h, hostShapeNames[got], hostShapeNames[want])
		}
	}
	// A granted host written with its trailing dot: the name without it
	// is the same name to the resolver (SPEC §6) and another to the grant,
	// the trailing-dot variant the generators draw by dropping the dot.
	// An A-label, with the hosts a guard that decodes or encodes hosts as
	// a URL parser does lets through.
	aLabel := []string{"xn--bcher-kva.example"}
	for h, want := range map[string]int{"b\u00fccher.example": HostEncoded, "b\u00fccher.other": HostOther,
		"xn--bcher-kva%2eexample": HostEncoded, "www.xn--bcher-kva.example": HostSubdomain} {
		if got := ClassifyHost(h, aLabel); got != want {
			t.Errorf("ClassifyHost(%q, %q) = %s, want %s", h, aLabel, hostShapeNames[got], hostShapeNames[want])
		}
	}
	dotted := []string{"dotted.example."}
	for h, want := range map[string]int{"dotted.example.": HostGranted, "dotted.example": HostTrailingDot,
		"DOTTED.example.": HostCase, "dotted.exampl": HostOther} {
		if got := ClassifyHost(h, dotted); got != want {
			t.Errorf("ClassifyHost(%q, %q) = %s, want %s", h, dotted, hostShapeNames[got], hostShapeNames[want])
		}
	}
}

// hits counts sc and returns the hit points' names.
func hits(t *testing.T, sc *scenario.Scenario) map[string]uint64 {
	t.Helper()
	g, err := core.NewGrant(sc.Grant)
	if err != nil {
		t.Fatal(err)
	}
	var c Counts
	Count(sc, g, nil, &c)
	out := map[string]uint64{}
	for i, p := range catalog {
		if n := c.Hits(i); n > 0 {
			out[p.String()] = n
		}
	}
	return out
}

func parse(t *testing.T, text string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("t.sbx", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func mustHit(t *testing.T, got map[string]uint64, want ...string) {
	t.Helper()
	for _, w := range want {
		if got[w] == 0 {
			t.Errorf("point %q not hit; hit: %v", w, got)
		}
	}
}

func mustMiss(t *testing.T, got map[string]uint64, miss ...string) {
	t.Helper()
	for _, m := range miss {
		if got[m] != 0 {
			t.Errorf("point %q hit %d times; it must not be", m, got[m])
		}
	}
}

// TestCountAddresses: an address is counted when a granted host resolves
// to it, with the host's spelling; a denied host resolves nothing.
func TestCountAddresses(t *testing.T) {
	got := hits(t, parse(t, `
grant net 0xac140101 granted.test ::ffff:172.31.255.255
dns granted.test fe80::1
net_fetch 0xac140101 /
net_fetch granted.test /
net_fetch ::ffff:172.31.255.255 /
net_fetch 172.20.1.1 /
`))
	mustHit(t, got, "internal-range 172.16.0.0/12: interior, hex", "internal-range fe80::/10: interior, name",
		"internal-range 172.16.0.0/12: high edge, v4-mapped")
	mustMiss(t, got, "internal-range 172.16.0.0/12: interior, dotted")
	// A dns line answers a literal before the literal does (SPEC §6): the
	// address is a name's; a trailing dot is ignored as the resolver does.
	got = hits(t, parse(t, "grant net 127.1 10.0.0.0.\ndns 127.1 10.0.0.0\nnet_fetch 127.1 /\nnet_fetch 10.0.0.0. /\n"))
	mustHit(t, got, "internal-range 10.0.0.0/8: low edge, name", "internal-range 10.0.0.0/8: low edge, dotted")
	mustMiss(t, got, "internal-range 10.0.0.0/8: low edge, short", "internal-range 127.0.0.0/8: interior, short")
	got = hits(t, parse(t, "grant net ::\nnet_fetch :: /\n"))
	mustHit(t, got, "internal-range ::/128: low edge, compressed", "internal-range ::/128: high edge, compressed", "internal-range ::1/128: just below, compressed")
	// SPEC §6's embedding forms: the IPv4 ranges count the address carried,
	// in its form; the prefixes count the address itself, as spelled.
	got = hits(t, parse(t, `
grant net 2002:a9fe:a9fe:: ::2 64:ff9b::1:0:0 [64:ff9b:1::] 2001:0:0:0:0:0:0:1 ::ffff:0.0.0.0
net_fetch 2002:a9fe:a9fe:: /
net_fetch ::2 /
net_fetch 64:ff9b::1:0:0 /
net_fetch [64:ff9b:1::] /
net_fetch 2001:0:0:0:0:0:0:1 /
net_fetch ::ffff:0.0.0.0 /
`))
	mustHit(t, got, "internal-range 169.254.0.0/16: interior, 6to4", "internal-range 2002::/16: interior, compressed",
		"internal-range 0.0.0.0/8: interior, v4-compatible", "internal-range ::/96: interior, compressed", "internal-range ::1/128: just above, compressed",
		"internal-range 64:ff9b::/96: just above, compressed", "internal-range 64:ff9b:1::/48: low edge, bracketed",
		"internal-range 2001::/32: interior, expanded", "internal-range 0.0.0.0/8: low edge, v4-mapped", "internal-range ::ffff:0.0.0.0/96: low edge, compressed")
	mustMiss(t, got, "internal-range 0.0.0.0/8: low edge, nat64", "internal-range 169.254.0.0/16: interior, compressed",
		"internal-range 0.0.0.0/8: interior, compressed", "internal-range 64:ff9b::/96: high edge, compressed")
}

// TestForm: the embedding form of an IPv6 address is the prefix of SPEC
// §6 it lies in; :: and ::1 and the addresses just outside are in none.
func TestForm(t *testing.T) {
	cases := map[string]int{
		"::ffff:10.1.2.3": iprange.Mapped, "64:ff9b::a01:203": iprange.NAT64, "::a01:203": iprange.Compatible,
		"::2": iprange.Compatible, "2002:a01:203::1": iprange.SixToFour, "::ffff:ffff": iprange.Compatible,
		"::": -1, "::1": -1, "::1:0:0": -1, "64:ff9b::1:0:0": -1, "2003::": -1, "2001::1": -1, "64:ff9b:1::": -1, "10.1.2.3": -1,
	}
	for s, want := range cases {
		got, ok := iprange.Form(netip.MustParseAddr(s))
		if !ok {
			got = -1
		}
		if got != want {
			t.Errorf("Form(%s) = %d, want %d", s, got, want)
		}
	}
}

// TestCountBudgets: the budget points land where usage meets the budget,
// and two budgets on the edge in one op are a pair.
func TestCountBudgets(t *testing.T) {
	got := hits(t, parse(t, `
grant fs_read /work/
budget ops 2
budget wall 4
budget output 5
clock 0 2
file /work/a "héllo"
file /work/b "hé"
fs_read /work/b
fs_read /work/b
fs_read /work/b
`))
	// op 1: ops 1 < 2, wall 2 < 4, output 3 < 5; op 2: ops 2 = 2, wall 4 = 4,
	// output 6 = 5+1 (halts).
	mustHit(t, got, "budget max_ops: below", "budget max_ops: exactly at",
		"budget max_wall: below", "budget max_wall: exactly at", "budget max_output_bytes: one over",
		"budget max_output_bytes: below",
		"budget-pair same op: ops at + wall at + output past", "budget-pair same op: ops at + output past",
		"budget-pair same op: wall at + output past", "budget-pair same op: ops at + wall at",
		"bytes returned data: multi-byte data one byte over max_output_bytes", "bytes returned data: multi-byte UTF-8")
	mustMiss(t, got, "budget max_wall: one over", "budget-pair same op: ops past + wall (would be) past", "budget max_ops: 0",
		"budget max_ops: one over") // the output halt latched: op 3 stops at the gate

	got = hits(t, parse(t, "budget ops 2\nbudget wall 5\nclock 0 2\nfs_read /x\nfs_read /x\nfs_read /x\n"))
	mustHit(t, got, "budget max_ops: one over", "budget-pair same op: ops past + wall (would be) past") // op 3: ops 3, the clock would say 6
	mustMiss(t, got, "budget max_wall: one over")                                                       // the clock was never read at op 3

	got = hits(t, parse(t, "budget ops 9223372036854775807\nbudget wall 0\nclock 0 0\nfs_read /x\n"))
	mustHit(t, got, "budget max_ops: max int64", "budget max_wall: 0", "budget max_wall: exactly at", "clock tick clock: step 0")

	// An empty effect is charged 0 bytes: on a budget of 0, it lands
	// exactly there.
	got = hits(t, parse(t, "grant tool echo\nbudget output 0\ntool echo \"\"\n"))
	mustHit(t, got, "budget max_output_bytes: 0", "budget max_output_bytes: exactly at")
	mustMiss(t, got, "bytes returned data: ASCII")
	got = hits(t, parse(t, "budget wall 9223372036854775807\nclock 9223372036854775806 4294967296\nfs_read /x\n"))
	mustHit(t, got, "clock tick clock: a tick past 2^63−1", "clock tick clock: step ≥ 2^32", "budget max_wall: max int64")
	mustMiss(t, got, "budget max_wall: below")
}

// TestCountShapes: argument bytes, path shapes and host shapes count only
// for ops that reach the checks.
func TestCountShapes(t *testing.T) {
	got := hits(t, parse(t, `
grant fs_read /work/
grant net api.test
fs_read /work/
fs_write "/work/\xff" "é"
net_fetch API.test /
"fs_réad" x
`))
	mustHit(t, got, "path-shape root written with a trailing slash: the root with a slash", "host-shape net_fetch host: case variant",
		"bytes fs path: invalid UTF-8", "bytes write data: multi-byte UTF-8", "bytes op kind: multi-byte UTF-8")
	got = hits(t, parse(t, "budget ops 0\nfs_read /work/\n"))
	mustMiss(t, got, "path-shape root written with a trailing slash: the root with a slash", "bytes fs path: ASCII")
}

// TestCatalogIsComplete: every index Count can produce is inside the
// catalog, and Find finds what Catalog lists.
func TestCatalogIsComplete(t *testing.T) {
	if baseHost+numHostShapes != len(catalog) {
		t.Fatalf("catalog has %d points, the last base ends at %d", len(catalog), baseHost+numHostShapes)
	}
	for i, p := range Catalog() {
		if j, ok := Find(p.Dim, p.Group, p.Name); !ok || j != i {
			t.Fatalf("Find(%v) = %d, %v; want %d", p, j, ok, i)
		}
	}
	if _, ok := Find(Budget, "max_ops", "nope"); ok {
		t.Fatal("Find found a point that is not there")
	}
	_ = math.MaxInt64
}

// TestClassMemo: the memo of long strings' classes answers for a prefix
// of a remembered string only when that is sound (a prefix of ASCII is
// ASCII), and is exactly ByteClass whatever order strings come in.
func TestClassMemo(t *testing.T) {
	nul := strings.Repeat("a", 2*memoFrom) + "\x00"
	multi := strings.Repeat("é", memoFrom)
	cases := []string{
		nul, nul[:2*memoFrom], nul[:memoFrom], nul, // NUL past the cut; then the ASCII prefix, longer and shorter
		multi, multi[:2*memoFrom-1], multi[:memoFrom], multi, // a cut inside a rune is invalid UTF-8
	}
	var c Counts
	for i, s := range cases {
		if got, want := c.class(s), ByteClass(s); got != want {
			t.Errorf("case %d (%d bytes): class = %s, want %s", i, len(s), byteClassNames[got], byteClassNames[want])
		}
	}
}
