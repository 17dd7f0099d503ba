package campaign

import (
	"bytes"
	"context"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestHostCause: a fetch's cause is its host's spelling and what the
// address it names is, so that one guard's misses of different ranges,
// or of one range in different spellings, are different causes.
func TestHostCause(t *testing.T) {
	dns := []scenario.DNSRecord{
		{Host: "meta.test", Addrs: []netip.Addr{netip.MustParseAddr("169.254.169.254")}},
		{Host: "rebind.test", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("127.0.0.1")}},
		{Host: "pub.test", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.8")}},
		{Host: "varied.test", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.8"), netip.MustParseAddr("203.0.113.9")}},
		{Host: "first.test", Addrs: []netip.Addr{netip.MustParseAddr("198.18.0.0"), netip.MustParseAddr("203.0.113.21")}},
	}
	for _, tc := range []struct{ host, want string }{
		{"127.0.0.1", "IPv4 dotted, loopback 127.0.0.0/8"},
		{"10.1.2.3", "IPv4 dotted, private 10.0.0.0/8"},
		{"0x7f.1", "IPv4 in hex"},
		{"0xa9fea9fe", "IPv4 in hex"},
		{"0177.0.0.1", "IPv4 in octal"},
		{"127.1", "IPv4 shortened"},
		{"2130706433", "IPv4 as one number"},
		{"::ffff:127.0.0.1", "IPv6 literal, an address in IPv4-mapped form"},
		{"[::FFFF:7F00:1]", "IPv6 literal, an address in IPv4-mapped form"},
		{"64:ff9b::a00:1", "IPv6 literal, an address in NAT64 form"},
		{"64:ff9b::c000:1", "IPv6 literal, an address in NAT64 form"},
		{"64:ff9b:1::1", "IPv6 literal, the NAT64 local-use prefix 64:ff9b:1::/48"},
		{"::1", "IPv6 literal, loopback ::1"},
		{"meta.test", "name of link-local 169.254.0.0/16"},
		{"META.TEST.", "name of link-local 169.254.0.0/16"},
		{"rebind.test", "name rebinding"},
		{"varied.test", "name of public answers that differ"},
		{"first.test", "name of benchmarking 198.18.0.0/15"},
		{"pub.test", "name of public"},
		{"meta.test:8080", "name of link-local 169.254.0.0/16"}, // a host with a port is looked up by its name
		{"localhost:8080", "name of loopback 127.0.0.0/8"},
	} {
		if got := hostCause(tc.host, dns); got != tc.want {
			t.Errorf("hostCause(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

// TestFetchCause: a fetch's cause is its host's, but a redirect's target's
// where a granted public host redirects, and the range of the internal
// answer the model's own lookup gets at a rebinding name (a guard that
// missed the range, not one that looked twice).
func TestFetchCause(t *testing.T) {
	src := `grant net nat64.example
grant net pub.example
grant net 10.0.0.1
grant net rel.example
dns nat64.example 151.101.65.12 64:ff9b::a9fe:a9fe
redirect pub.example /go http://100.100.100.200/x
redirect pub.example /ctx //169.254.169.254/latest
redirect 10.0.0.1 /go http://pub.example/
redirect other.example /go http://100.100.100.200/
redirect rel.example /go /admin
redirect nat64.example /go http://pub.example/
grant net inner.example
dns inner.example 10.0.0.9
redirect inner.example /go http://100.100.100.200/

net_fetch nat64.example /
net_fetch nat64.example /
net_fetch NAT64.EXAMPLE /
net_fetch nat64.example /
net_fetch pub.example /go
net_fetch pub.example /ctx
net_fetch pub.example /other
net_fetch 10.0.0.1 /go
net_fetch other.example /go
net_fetch rel.example /go
net_fetch nat64.example /go
net_fetch NAT64.EXAMPLE /
net_fetch inner.example /go
`
	sc, err := scenario.Parse("causes.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{
		"name rebinding",                   // the model's lookup answers public: a second lookup met the inside
		"name of an address in NAT64 form", // the model's own lookup answers the NAT64 address
		"name rebinding",                   // the model's third lookup would answer public
		"name rebinding",                   // step 3 was not granted: the third lookup is this one's
		"a redirect to IPv4 dotted, shared address space 100.64.0.0/10 (carrier-grade NAT)",
		"a redirect to IPv4 dotted, link-local 169.254.0.0/16",
		"name of public",                   // no redirect at that path
		"IPv4 dotted, private 10.0.0.0/8",  // the first hop is inside already
		"name of public",                   // not granted: its host is the finding
		"name of public",                   // a Location of a path stays on the host
		"name of an address in NAT64 form", // a redirect to a public name: the host's own cause (its fourth lookup)
		"name rebinding",                   // not granted: the model looks nothing up
		"name of private 10.0.0.0/8",       // a name whose first hop is inside already
	} {
		if got := fetchCause(sc, i); got != want {
			t.Errorf("step %d (%s): fetchCause = %q, want %q", i+1, judge.FormatOp(sc.Steps[i].Op), got, want)
		}
	}
}

// TestCollectorSpreadsFetchCauses: the findings of one invariant at
// fetches are kept one per cause: a guard that misses NAT64 in every
// check still leaves room for the hex spelling, the shortened one and
// another range it misses later, whatever attack class drew them.
func TestCollectorSpreadsFetchCauses(t *testing.T) {
	var got []int
	k := newCollector(false, 0, func(r raw) { got = append(got, r.check) })
	fetch := func(host string) *scenario.Scenario {
		return &scenario.Scenario{Steps: []scenario.Step{{Op: core.Op{Kind: core.OpFetch, Args: []string{host, "/"}}, Class: attack.IPSpelling}}}
	}
	hosts := []string{"64:ff9b::7f00:1", "64:ff9b::7f00:2", "64:ff9b::7f00:3", "64:ff9b::7f00:4", "64:ff9b::7f00:5", "0x7f.1", "0x7f.0.0.2", "127.1", "10.0.0.1", "192.168.0.1"}
	for i, h := range hosts {
		k.offer(i, fetch(h), []oracle.Finding{{Invariant: oracle.NoInternalEgress, Step: 1}}, stepMarks{})
		k.finish(i)
	}
	k.flush()
	if diff := cmp.Diff([]int{0, 5, 7, 8}, got); diff != "" {
		t.Errorf("checks kept (-want +got):\n%s", diff)
	}
	got = nil
	k = newCollector(false, 16, func(r raw) { got = append(got, r.check) })
	for i, h := range hosts {
		k.offer(i, fetch(h), []oracle.Finding{{Invariant: oracle.NoInternalEgress, Step: 1}}, stepMarks{})
		k.finish(i)
	}
	k.flush()
	if diff := cmp.Diff([]int{0, 5, 7, 8, 9}, got); diff != "" {
		t.Errorf("checks kept with 16 per invariant (-want +got):\n%s", diff)
	}
}

// TestCollectorKeepsAKeptAnswerApart: a fetch's finding that the
// address checked is not the one used, at an op that connected to a
// public answer the sandbox kept (a DNS cache), is a cause of its own, so
// that a later check that lets the same name's rebinding through is still
// written; a kept op whose fetch went inside, and another invariant at
// it, keep the host's cause.
func TestCollectorKeepsAKeptAnswerApart(t *testing.T) {
	fetch := func(host string) *scenario.Scenario {
		return &scenario.Scenario{World: scenario.WorldSpec{DNS: []scenario.DNSRecord{{Host: host, Addrs: []netip.Addr{netip.MustParseAddr("93.184.215.7"), netip.MustParseAddr("127.0.0.1")}}}},
			Steps: []scenario.Step{{Op: core.Op{Kind: core.OpFetch, Args: []string{host, "/"}}}, {Op: core.Op{Kind: core.OpFetch, Args: []string{host, "/"}}}}}
	}
	cached := oracle.Finding{Invariant: oracle.NoInternalEgress, Step: 2, Detail: "fetched from 93.184.215.7, but the last resolve of \"rebind.example\" answered 127.0.0.1: " + notTheAddressChecked + " (this time ...)"}
	inside := oracle.Finding{Invariant: oracle.NoInternalEgress, Step: 2, Detail: "fetched from 127.0.0.1, an internal address (loopback 127.0.0.0/8)"}
	keptAt := map[int]bool{1: true}
	for _, tc := range []struct {
		first     oracle.Finding
		firstKept map[int]bool
		want      []int
	}{
		{cached, keptAt, []int{0, 1}},
		{cached, nil, []int{0}},
		{inside, keptAt, []int{0}},
	} {
		var got []int
		k := newCollector(false, 0, func(r raw) { got = append(got, r.check) })
		k.offer(0, fetch("rebind.example"), []oracle.Finding{tc.first}, stepMarks{kept: tc.firstKept})
		k.finish(0)
		k.offer(1, fetch("rebind.example"), []oracle.Finding{inside}, stepMarks{})
		k.finish(1)
		k.flush()
		if !slices.Equal(got, tc.want) {
			t.Errorf("first %q, kept at %v: checks written %v, want %v", tc.first.Detail, tc.firstKept, got, tc.want)
		}
	}
}

// TestPathCause: a file op's cause is what its path does to the op's
// roots, for its kind; a path under a root through no link has none (its
// attack class decides).
func TestPathCause(t *testing.T) {
	sc := &scenario.Scenario{
		Grant: core.GrantSpec{FSRead: []string{"/data/", "/srv/app"}, FSWrite: []string{"/data/out"}},
		World: scenario.WorldSpec{Links: []scenario.Link{{Path: "/data/ln", Target: "/etc"},
			{Path: "/data/out/f", Target: "/etc/passwd"}, {Path: "/data/out/d", Target: "/etc"}}},
	}
	for _, tc := range []struct{ kind, path, want string }{
		{core.OpRead, "/etc/passwd", "fs_read, outside every root"},
		{core.OpRead, "/", "fs_read, outside every root"},
		{core.OpRead, "/DATA/a", "fs_read, outside every root"},
		{core.OpWrite, "/w", "fs_write, outside every root"},
		{core.OpWrite, "/data/a", "fs_write, outside every root"},
		{core.OpRead, "/srv/appshop/secret", "fs_read, a prefix sibling of a root"},
		{core.OpRead, "/database", "fs_read, a prefix sibling of a root"},
		{core.OpRead, "/data/../etc/passwd", "fs_read, a traversal"},
		{core.OpRead, "/data/a/../b", "fs_read, a traversal"},
		{core.OpRead, "/data/ln/passwd", "fs_read, below a link under a root"},
		{core.OpRead, "//data/ln", "fs_read, at a link under a root"},
		{core.OpWrite, "/data/out/f", "fs_write, at a link under a root"},
		{core.OpWrite, "/data/out/d/new", "fs_write, below a link under a root"},
		{core.OpRead, "/data/lnx", ""},
		{core.OpRead, "/data/a", ""},
		{core.OpWrite, "/data/out/x", ""},
		{core.OpFetch, "/etc/passwd", ""},
	} {
		op := core.Op{Kind: tc.kind, Args: []string{tc.path}}
		if got := pathCause(op, sc); got != tc.want {
			t.Errorf("pathCause(%s %s) = %q, want %q", tc.kind, tc.path, got, tc.want)
		}
	}
}

// TestMinimizedClass: a minimized finding's op drawn with a link class
// is labelled by its path's shape where no link of the minimized world
// lies on its path, and a loop that resolves by the link it names; any
// other class, and a link class whose link is still there, stays as
// drawn. A fetch drawn with a path's class whose path was emptied is
// labelled by its host.
func TestMinimizedClass(t *testing.T) {
	grant := core.GrantSpec{FSRead: []string{"/data"}, FSWrite: []string{"/data/out"}, NetHosts: []string{"api.test"}}
	links := []scenario.Link{{Path: "/data/ln", Target: "/etc/passwd"}, {Path: "/data/d", Target: "/etc"},
		{Path: "/data/loop", Target: "/data/loop"}}
	// kind, path, whether the world has the links, drawn class, label.
	const cases = `
		fs_read  /datas               -     symlink-escape prefix-sibling
		fs_read  /etc/passwd          -     symlink-parent outside-absolute
		fs_read  /data/../etc/passwd  -     symlink-loop   traversal
		fs_write /data/out/x          -     symlink-escape benign
		fs_read  /datas               links symlink-escape prefix-sibling
		fs_read  /data/ln             links symlink-escape symlink-escape
		fs_read  /data/d/passwd       links symlink-parent symlink-parent
		fs_read  /data/ln             links symlink-loop   symlink-escape
		fs_read  /data/d/passwd       links symlink-loop   symlink-parent
		fs_read  /data/loop           links symlink-loop   symlink-loop
		fs_read  /data/x/../d/passwd  links symlink-parent symlink-parent
		fs_read  /data/../etc/passwd  links symlink-loop   traversal
		fs_read  /data/../etc/passwd  links symlink-escape traversal
		fs_read  /data/ln/../x        links symlink-escape symlink-escape
		fs_read  /data/d/x/..         links symlink-loop   symlink-escape
		fs_read  /datas               -     encoded        encoded
		net_fetch /datas              -     symlink-escape symlink-escape
		net_fetch ::239.255.255.254   -     traversal      ip-spelling
		net_fetch evil.test           -     dot-segments   unknown-host
		net_fetch api.test            -     encoded        benign`
	for _, line := range strings.Split(strings.TrimSpace(cases), "\n") {
		f := strings.Fields(line)
		drawn, ok1 := attack.Parse(f[3])
		want, ok2 := attack.Parse(f[4])
		if !ok1 || !ok2 {
			t.Fatalf("%s: a class that does not parse", line)
		}
		op := core.Op{Kind: f[0], Args: []string{f[1]}}
		if f[0] == core.OpFetch && f[1] != "/datas" {
			op.Args = append(op.Args, "") // a path minimizing emptied
		}
		sc := &scenario.Scenario{Grant: grant, Steps: []scenario.Step{{Op: op, Class: drawn}}}
		if f[2] == "links" {
			sc.World.Links = links
		}
		if got := MinimizedClass(sc, 1, drawn); got != want {
			t.Errorf("MinimizedClass(%s): %s, want %s", line, got, want)
		}
	}
}

// TestCollectorSpreadsPathCauses: the findings of one invariant at file
// ops are kept one per cause, whatever attack class drew them: a server
// that checks no root fails every check at a path outside them, and
// still leaves room for its escapes through a link, later: at the link
// and below it, each once.
func TestCollectorSpreadsPathCauses(t *testing.T) {
	var got []int
	k := newCollector(false, 0, func(r raw) { got = append(got, r.check) })
	write := func(p string, class attack.Class) *scenario.Scenario {
		return &scenario.Scenario{
			Grant: core.GrantSpec{FSWrite: []string{"/data"}},
			World: scenario.WorldSpec{Links: []scenario.Link{{Path: "/data/chain", Target: "/etc/passwd"}}},
			Steps: []scenario.Step{{Op: core.Op{Kind: core.OpWrite, Args: []string{p, "x"}}, Class: class}},
		}
	}
	ops := []*scenario.Scenario{
		write("/w", attack.Lookalike), write("/e", attack.OutsideAbsolute), write("/r", attack.SymlinkLoop),
		write("/data/chain", attack.Lookalike), write("/data/../etc/x", attack.Traversal),
		write("/data/chain/x", attack.SymlinkEscape), write("/data/chain/y", attack.SymlinkEscape),
	}
	for i, sc := range ops {
		k.offer(i, sc, []oracle.Finding{{Invariant: oracle.Confinement, Step: 1}}, stepMarks{})
		k.finish(i)
	}
	k.flush()
	if diff := cmp.Diff([]int{0, 3, 4, 5}, got); diff != "" {
		t.Errorf("checks kept (-want +got):\n%s", diff)
	}
}

// TestKeptCause: minimizing keeps a file op's or a fetch's cause, and
// no more than the invariant for an op whose cause is its attack class.
func TestKeptCause(t *testing.T) {
	sc := &scenario.Scenario{
		Grant: core.GrantSpec{FSWrite: []string{"/data"}},
		World: scenario.WorldSpec{Links: []scenario.Link{{Path: "/data/ln", Target: "/etc"}}},
		Steps: []scenario.Step{
			{Op: core.Op{Kind: core.OpWrite, Args: []string{"/data/ln/x", "p"}}, Class: attack.Lookalike},
			{Op: core.Op{Kind: core.OpWrite, Args: []string{"/data/a", "p"}}, Class: attack.Lookalike},
			{Op: core.Op{Kind: core.OpFetch, Args: []string{"0x7f.1", "/"}}, Class: attack.IPSpelling},
		},
	}
	for _, tc := range []struct {
		step int
		want string
	}{{1, "fs_write, below a link under a root"}, {2, ""}, {3, "IPv4 in hex"}} {
		if got := KeptCause(sc, oracle.Finding{Invariant: oracle.Confinement, Step: tc.step}); got != tc.want {
			t.Errorf("step %d: KeptCause = %q, want %q", tc.step, got, tc.want)
		}
	}
}

// TestTwins: a verdict-matches-model finding at an op is minimized along
// the other invariants its op failed, hangs left out; any other finding,
// or one of the run as a whole, along none.
func TestTwins(t *testing.T) {
	fs := []oracle.Finding{
		{Invariant: oracle.NoInternalEgress, Step: 2},
		{Invariant: oracle.VerdictMatchesModel, Step: 2},
		{Invariant: oracle.Total, Step: 2, Hang: true},
		{Invariant: oracle.Confinement, Step: 1},
		{Invariant: oracle.VerdictMatchesModel, Step: 0},
	}
	for i, want := range [][]oracle.ID{nil, {oracle.NoInternalEgress}, nil, nil, nil} {
		if got := twins(fs[i], fs); !slices.Equal(got, want) {
			t.Errorf("twins of %v = %v, want %v", fs[i], got, want)
		}
	}
}

// TestFailureCause: total findings at ops of different hosts that fail
// in the same words, numbers aside, are one cause, written once; a
// failure in other words, or at an op of another kind, is another; a hang
// is not a crash.
func TestFailureCause(t *testing.T) {
	var got []int
	k := newCollector(false, 16, func(r raw) { got = append(got, r.check) })
	for i, tc := range []struct{ kind, arg, why string }{
		{core.OpFetch, "a.test", "the sandbox answered with an error: -32603 URIError: URI malformed"},
		{core.OpFetch, "b.test", "the sandbox answered with an error: -32603 URIError: URI malformed"},
		{core.OpFetch, "127.1", "the sandbox answered with an error: -32603 URIError: URI malformed"},
		{core.OpFetch, "d.test", `tools/call: a response with id "forged", want 7`},
		{core.OpFetch, "e.test", `tools/call: a response with id "forged", want 12; its stderr ends: fetching b.test | fetching e.test`},
		{core.OpFetch, "c.test", "did not answer within 2s"},
		{core.OpRead, "/work/a", "the sandbox answered with an error: -32603 URIError: URI malformed"},
		{core.OpRead, "/work/b", "the sandbox answered with an error: -32603 no such file: /work/b"},
	} {
		op := core.Op{Kind: tc.kind, Args: []string{tc.arg}}
		if tc.kind == core.OpFetch {
			op.Args = append(op.Args, "/")
		}
		sc := &scenario.Scenario{Steps: []scenario.Step{{Op: op, Class: attack.Benign}}}
		f := oracle.Finding{Invariant: oracle.Total, Step: 1, Detail: judge.FormatOp(op) + " " + tc.why}
		k.offer(i, sc, []oracle.Finding{f}, stepMarks{})
		k.finish(i)
		if c := KeptCause(sc, f); c != "" {
			t.Errorf("KeptCause of a total finding = %q, want none: it is minimized as any", c)
		}
	}
	k.flush()
	if diff := cmp.Diff([]int{0, 3, 5, 6, 7}, got); diff != "" {
		t.Errorf("checks kept (-want +got):\n%s", diff)
	}
}

// checksEveryLookup is the reference with a fetch guard of dssrf's kind:
// a granted host is looked up three times and refuses it if any answer is
// internal, then connects with a lookup of its own. The model's one
// lookup reaches none of it.
type checksEveryLookup struct {
	core.Sandbox
	world core.World
}

func (s checksEveryLookup) Run(op core.Op) core.Result {
	if op.Kind != core.OpFetch || len(op.Args) != 2 {
		return s.Sandbox.Run(op)
	}
	host := op.Args[0]
	if !slices.Contains(s.Grant().NetHosts(), host) {
		return core.Result{Kind: core.EgressDenied}
	}
	for range 3 {
		if spec.IsInternal(s.world.Resolve(host)) {
			return core.Result{Kind: core.EgressInternal}
		}
	}
	body, ok := s.world.Fetch(host, s.world.Resolve(host), op.Args[1])
	if !ok {
		return core.Result{Kind: core.NotFound}
	}
	return core.Result{Kind: core.OK, Data: body}
}

// TestMinimizingKeepsTheRebinding: a guard that checks three lookups and
// connects with a fourth, met with a name answered public three times and
// then internal, fetches from 127.0.0.1; minimized with the cause a
// campaign keeps, its file still fetches from 127.0.0.1, not from one of
// the public answers (which SPEC §5's one lookup also fails: the answers
// differ) that a line without the internal answer gives.
func TestMinimizingKeepsTheRebinding(t *testing.T) {
	factory := func(g core.Grant, w core.World) (core.Sandbox, error) {
		return checksEveryLookup{core.NewReference(g, w), w}, nil
	}
	sc, err := scenario.Parse("rebind.sbx", []byte("grant net r.test\ndns r.test 203.0.113.5 203.0.113.6 203.0.113.7 127.0.0.1\nroute r.test / x\n\nnet_fetch r.test /\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := oracle.Check(factory, sc, nil, oracle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(fs, func(f oracle.Finding) bool { return f.Invariant == oracle.NoInternalEgress })
	if i < 0 || !strings.Contains(fs[i].Detail, "fetched from 127.0.0.1") {
		t.Fatalf("findings %v, want a fetch from 127.0.0.1", fs)
	}
	f := (&finding.Pipeline{Factory: factory, SUT: "test", Cause: KeptCause}).Process(sc, fs[i], "test")
	if !strings.Contains(fileDetail(f), "fetched from 127.0.0.1") || !bytes.Contains(f.Minimized.Format(), []byte("127.0.0.1")) {
		t.Errorf("minimized to %q:\n%s\nwant the fetch from 127.0.0.1 kept", fileDetail(f), f.Minimized.Format())
	}
	t.Logf("minimized to:\n%s", f.Minimized.Format())
}

// TestStoodIn: a finding whose op the door answered as the model does,
// counted stricter, says so after the oracle's words when it was
// minimized to that op; at another op, or with no stricter count, it
// says nothing more; offer carries the reason at the finding's op.
func TestStoodIn(t *testing.T) {
	op := func(host string) scenario.Step {
		return scenario.Step{Op: core.Op{Kind: core.OpFetch, Args: []string{host, "/go"}}}
	}
	orig := &scenario.Scenario{Steps: []scenario.Step{op("a.test"), op("b.test")}}
	r := raw{sc: orig, f: oracle.Finding{Invariant: oracle.Confinement, Step: 2}, stricter: "followed-redirect"}
	for _, tc := range []struct {
		min  []scenario.Step
		step int
		r    raw
		want string
	}{
		{[]scenario.Step{op("b.test")}, 1, r, "counted stricter than the model, followed-redirect: the result given is the model's"},
		{[]scenario.Step{op("a.test")}, 1, r, ""},
		{[]scenario.Step{op("b.test")}, 0, r, ""},
		{[]scenario.Step{op("b.test")}, 1, raw{sc: orig, f: r.f}, ""},
	} {
		f := &finding.Finding{Minimized: &scenario.Scenario{Steps: tc.min}, MinStep: tc.step}
		if got := stoodIn(tc.r, f); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("minimized to %v at step %d, stricter %q: %q, want %q", tc.min[0].Op.Args, tc.step, tc.r.stricter, got, tc.want)
		}
	}
	var got []raw
	k := newCollector(false, 0, func(r raw) { got = append(got, r) })
	k.offer(0, orig, []oracle.Finding{r.f}, stepMarks{stricter: map[int]string{1: "followed-redirect", 0: "ipv6-literal"}})
	k.finish(0)
	k.flush()
	if len(got) != 1 || got[0].stricter != "followed-redirect" {
		t.Errorf("offered with a reason at its op: %+v, want one raw finding carrying followed-redirect", got)
	}
}

// crStripping is a world whose writes and reads drop a carriage return
// before a newline: a sandbox on it leaves other bytes than it was asked
// to write, and reads other bytes than the file holds.
type crStripping struct{ core.World }

func (w crStripping) Write(p, data string) { w.World.Write(p, strings.ReplaceAll(data, "\r\n", "\n")) }

func (w crStripping) Read(p string) (string, bool) {
	data, ok := w.World.Read(p)
	return strings.ReplaceAll(data, "\r\n", "\n"), ok
}

// TestContentCause: a sandbox that mangles the data it writes or reads
// fails verdict-matches-model at such ops of every attack class; in the
// oracle's own words each is one cause of its kind (the file left, the
// data read), and a verdict of another kind, or a finding of another
// invariant, is none.
func TestContentCause(t *testing.T) {
	mangling := func(g core.Grant, w core.World) (core.Sandbox, error) {
		return core.ReferenceFactory(g, crStripping{w})
	}
	for src, want := range map[string]string{
		"grant fs_read /work\ngrant fs_write /work\n\nfs_write /work/a \"one\\r\\ntwo\"\n":                  "fs_write, a file left other than written",
		"grant fs_read /work\nfile /work/a \"one\\r\\ntwo\"\n\nfs_read /work/a\n":                           "fs_read, data other than the model's",
		"grant fs_read /work\nfile /work/a \"" + strings.Repeat("y", 300) + "\\r\\n\"\n\nfs_read /work/a\n": "fs_read, data other than the model's",
	} {
		sc, err := scenario.Parse("cr.sbx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		fs, _ := oracle.Check(mangling, sc, nil, oracle.Options{}) // its grant is valid: no error
		for _, f := range fs {
			if f.Invariant == oracle.VerdictMatchesModel {
				got = append(got, contentCause(sc.Steps[f.Step-1].Op, f))
			}
		}
		if !slices.Equal(got, []string{want}) {
			t.Errorf("%q: causes %q of findings %v, want %q", src, got, fs, want)
		}
	}
	sc, err := scenario.Parse("a.sbx", []byte("grant fs_read /work\n\nfs_read /work/x\nfs_read /work/a\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f    oracle.Finding
		step int
		want string
	}{
		{oracle.Finding{Invariant: oracle.VerdictMatchesModel, Detail: `fs_read /work/a returned ok with "one\ntwo", but the model of SPEC §5 gives ok with "one\r\ntwo": every check passes`}, 1, "fs_read, data other than the model's"},
		{oracle.Finding{Invariant: oracle.VerdictMatchesModel, Detail: `fs_read /work/a returned ok with "` + strings.Repeat("y", 256) + `"… (301 bytes in all), but the model of SPEC §5 gives ok with "` + strings.Repeat("y", 256) + `"… (302 bytes in all): every check passes`}, 1, "fs_read, data other than the model's"},
		{oracle.Finding{Invariant: oracle.VerdictMatchesModel, Detail: `fs_read /work/a returned ok with no data, but the model of SPEC §5 gives ok with "x": every check passes`}, 1, "fs_read, data other than the model's"},
		{oracle.Finding{Invariant: oracle.VerdictMatchesModel, Detail: `fs_read /work/a returned ok with 3 bytes, but the model of SPEC §5 gives fs_read_denied: no root`}, 1, ""},
		{oracle.Finding{Invariant: oracle.VerdictMatchesModel, Detail: `fs_read /work/a returned not_found with "x, but the model of SPEC §5 gives ok with ", but the model of SPEC §5 gives ok with "y": forged`}, 1, ""},
		{oracle.Finding{Invariant: oracle.Confinement, Detail: `fs_read /work/a returned ok with "x", but the model of SPEC §5 gives ok with "y"`}, 1, ""},
		{oracle.Finding{Invariant: oracle.VerdictMatchesModel, Detail: `fs_read /work/a returned ok as the model does, but left usage ops=2 wall=0 output=3 where the model of SPEC §5 has ops=2 wall=0 output=4: rule`}, 1, "fs_read, usage other than the model's"},
	} {
		if got := contentCause(sc.Steps[1].Op, tc.f); got != tc.want {
			t.Errorf("contentCause(%q) = %q, want %q", tc.f.Detail, got, tc.want)
		}
	}
}

// TestCampaignWritesOneContentDefectOnce: a campaign against a sandbox
// that drops carriage returns writes its verdict-matches-model findings
// one per kind of op, not two per attack class that drew them.
func TestCampaignWritesOneContentDefectOnce(t *testing.T) {
	mangling := func(g core.Grant, w core.World) (core.Sandbox, error) {
		return core.ReferenceFactory(g, crStripping{w})
	}
	target := sut.Target{Name: "crlf", Start: func() (core.Factory, func() error, error) { return mangling, func() error { return nil }, nil }}
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 3000, Workers: 1, PerInvariant: 16, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	var causes []string
	for _, f := range res.Findings {
		if f.Invariant == oracle.VerdictMatchesModel {
			causes = append(causes, f.Cause)
			t.Logf("%s [%s] %.120s", f.Class, f.Cause, f.MinDetail)
		}
	}
	slices.Sort(causes)
	if len(causes) == 0 || len(causes) != len(slices.Compact(slices.Clone(causes))) {
		t.Errorf("verdict-matches-model written for causes %q: want each once", causes)
	}
}

// TestLookupCause: a fetch refused after a lookup of its host is one
// cause, whatever the name answered; a refusal that also connected, a
// lookup of more than the host, and an op let through are judged by
// their host.
func TestLookupCause(t *testing.T) {
	op := core.Op{Kind: core.OpFetch, Args: []string{"e", "/"}}
	for _, tc := range []struct {
		f    oracle.Finding
		want string
	}{
		{oracle.Finding{Invariant: oracle.Confinement, Detail: `net_fetch e / returned egress_denied and the journal shows resolve e -> 203.0.113.1, but "e" is not a granted host (none granted)`}, refusedLookupCause},
		{oracle.Finding{Invariant: oracle.Confinement, Detail: `net_fetch e / returned max_ops (hard) and the journal shows resolve e -> 127.0.0.1, but "e" is not a granted host (none granted)`}, refusedLookupCause},
		{oracle.Finding{Invariant: oracle.NoEffectOnDenial, Detail: `net_fetch e / was refused with egress_denied, but the world changed: the journal gained 1 entries, first "resolve e -> 10.0.0.5"`}, refusedLookupCause},
		{oracle.Finding{Invariant: oracle.Confinement, Detail: `net_fetch e / returned egress_denied and the journal shows resolve e -> 203.0.113.1, and then fetch e 203.0.113.1 /, but "e" is not a granted host (none granted)`}, ""},
		{oracle.Finding{Invariant: oracle.Confinement, Detail: `net_fetch e / returned not_found and the journal shows resolve e -> 203.0.113.1, but "e" is not a granted host (none granted)`}, ""},
		{oracle.Finding{Invariant: oracle.Confinement, Detail: `net_fetch e / returned ok with 3 bytes and the journal shows resolve r -> 203.0.113.1, but "r" is not a granted host (none granted)`}, ""},
		{oracle.Finding{Invariant: oracle.NoEffectOnDenial, Detail: `net_fetch e / was refused with egress_denied, but the world changed: the journal gained 2 entries, first "resolve e -> 10.0.0.5"`}, ""},
		{oracle.Finding{Invariant: oracle.NoEffectOnDenial, Detail: `net_fetch e / was refused with egress_denied, but the world changed: the journal gained 1 entries, first "fetch e 10.0.0.5 /"`}, ""},
		{oracle.Finding{Invariant: oracle.VerdictMatchesModel, Detail: `net_fetch e / returned egress_denied and the journal shows resolve e -> 203.0.113.1`}, ""},
		// A name the sandbox chose (data leaked through DNS), not the op's.
		{oracle.Finding{Invariant: oracle.Confinement, Detail: `net_fetch e / returned egress_denied and the journal shows resolve c2VjcmV0.attacker.example -> 203.0.113.1, but "c2VjcmV0.attacker.example" is not a granted host (none granted)`}, ""},
		{oracle.Finding{Invariant: oracle.NoEffectOnDenial, Detail: `net_fetch e / was refused with egress_denied, but the world changed: the journal gained 1 entries, first "resolve c2VjcmV0.attacker.example -> 10.0.0.5"`}, ""},
		// A granted host refused after its lookup: a stricter sandbox's.
		{oracle.Finding{Invariant: oracle.NoEffectOnDenial, Detail: `net_fetch e / was refused with egress_denied where the model allows the op, but the world changed: the journal gained 1 entries, first "resolve e -> 203.0.113.1"`}, ""},
	} {
		if got := lookupCause(op, tc.f); got != tc.want {
			t.Errorf("lookupCause(%q) = %q, want %q", tc.f.Detail, got, tc.want)
		}
	}
	// The oracle's own words, on a sandbox that looks the host up first.
	m, _ := mutants.Lookup("lookup-before-allowlist")
	sc, err := scenario.Parse("e.sbx", []byte("net_fetch e /\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs, _ := oracle.Check(m.Factory, sc, nil, oracle.Options{})
	var got []string
	for _, f := range fs {
		if f.Invariant == oracle.Confinement || f.Invariant == oracle.NoEffectOnDenial {
			got = append(got, lookupCause(sc.Steps[0].Op, f))
		}
	}
	if !slices.Equal(got, []string{refusedLookupCause, refusedLookupCause}) {
		t.Errorf("the oracle's findings %v: causes %q, want %q for each of two", fs, got, refusedLookupCause)
	}
}

// TestCampaignWritesALookupBeforeTheAllowListOnce: a sandbox that looks
// every host up before its allow-list leaks each refused one, whatever it
// answers: its confinement and no-effect-on-denial findings are one cause
// each, not one for every range the answers fall in.
func TestCampaignWritesALookupBeforeTheAllowListOnce(t *testing.T) {
	m, ok := mutants.Lookup("lookup-before-allowlist")
	if !ok {
		t.Fatal("no lookup-before-allowlist mutant")
	}
	target := sut.Target{Name: "lookup-first", Start: func() (core.Factory, func() error, error) { return m.Factory, func() error { return nil }, nil }}
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 1000, Workers: 1, PerInvariant: 16, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	written := map[oracle.ID][]string{}
	for _, f := range res.Findings {
		if f.Invariant == oracle.Confinement || f.Invariant == oracle.NoEffectOnDenial {
			written[f.Invariant] = append(written[f.Invariant], f.Cause)
		}
	}
	for _, id := range []oracle.ID{oracle.Confinement, oracle.NoEffectOnDenial} {
		if !slices.Equal(written[id], []string{refusedLookupCause}) {
			t.Errorf("%s written for causes %q, want once, for %q", id, written[id], refusedLookupCause)
		}
	}
}

// TestOwnHostCause: a confinement finding at a fetch whose ungranted host
// is one the sandbox chose (a reader service every URL is relayed to) is
// one cause, that host's, whatever host the op asked; the op's own host,
// and a redirect's Location, keep the op's cause.
func TestOwnHostCause(t *testing.T) {
	parse := func(src string) *scenario.Scenario {
		sc, err := scenario.Parse("t.sbx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	relay := func(op, granted string) string {
		return op + ` returned not_found and the journal shows resolve r.jina.ai -> 203.0.113.1, and then fetch r.jina.ai 203.0.113.1 /, but "r.jina.ai" is not a granted host (` + granted + `)`
	}
	const want = "net_fetch, a host of the sandbox's own: *.jina.ai"
	redirect := parse("grant net files.corp.example\nredirect files.corp.example /go http://2130706433/\n\nnet_fetch files.corp.example /go\n")
	for _, tc := range []struct {
		sc   *scenario.Scenario
		f    oracle.Finding
		want string
	}{
		{parse("grant net 1..1\n\nnet_fetch 1..1 /\n"), oracle.Finding{Invariant: oracle.Confinement, Step: 1, Detail: relay("net_fetch 1..1 /", `"1..1"`)}, want},
		{parse("grant net 100.128.0.1\n\nnet_fetch 100.128.0.1 /\n"), oracle.Finding{Invariant: oracle.Confinement, Step: 1, Detail: relay("net_fetch 100.128.0.1 /", `"100.128.0.1"`)}, want},
		{redirect, oracle.Finding{Invariant: oracle.Confinement, Step: 1, Detail: relay("net_fetch files.corp.example /go", `"files.corp.example"`)}, want},
		{redirect, oracle.Finding{Invariant: oracle.Confinement, Step: 1, Detail: `net_fetch files.corp.example /go returned ok with 3 bytes and the journal shows resolve 2130706433 -> 127.0.0.1, and then fetch 2130706433 127.0.0.1 /, but "2130706433" is not a granted host ("files.corp.example")`}, ""},
		{parse("net_fetch E.test /\n"), oracle.Finding{Invariant: oracle.Confinement, Step: 1, Detail: `net_fetch E.test / returned not_found and the journal shows resolve e.test -> 203.0.113.1, and then fetch e.test 203.0.113.1 /, but "e.test" is not a granted host (none granted)`}, ""},
		{parse("grant net 1..1\n\nnet_fetch 1..1 /\n"), oracle.Finding{Invariant: oracle.NoEffectOnDenial, Step: 1, Detail: relay("net_fetch 1..1 /", `"1..1"`)}, ""},
		// The op's host in another spelling (a browser respells it).
		{parse("net_fetch 2130706433 /\n"), oracle.Finding{Invariant: oracle.Confinement, Step: 1, Detail: `net_fetch 2130706433 / returned ok with 3 bytes and the journal shows fetch 127.0.0.1 127.0.0.1 /, but "127.0.0.1" is not a granted host (none granted)`}, ""},
		// A host a page of the world names.
		{parse("grant net a.test\nroute a.test / <html><img%20src=http://R.jina.ai/x></html>\n\nnet_fetch a.test /\n"), oracle.Finding{Invariant: oracle.Confinement, Step: 1, Detail: relay("net_fetch a.test /", `"a.test"`)}, ""},
	} {
		if got, _ := causeOf(raw{sc: tc.sc, f: tc.f}); (tc.want != "") != (got == tc.want) || tc.want == "" && strings.HasPrefix(got, "net_fetch, a host of the sandbox's own") {
			t.Errorf("causeOf(%q) = %q, want %q", tc.f.Detail, got, tc.want)
		}
	}
	// Names that carry data out through DNS are one cause, their domain's.
	exfil := func(name string) string {
		sc := parse("grant net e\n\nnet_fetch e /\n")
		got, _ := causeOf(raw{sc: sc, f: oracle.Finding{Invariant: oracle.Confinement, Step: 1,
			Detail: `net_fetch e / returned egress_denied and the journal shows resolve ` + name + ` -> 203.0.113.1, and then fetch ` + name + ` 203.0.113.1 /, but "` + name + `" is not a granted host ("e")`}})
		return got
	}
	if a, b := exfil("c2VjcmV0.attacker.example"), exfil("b3RoZXI.attacker.example"); a != b || a != "net_fetch, a host of the sandbox's own: *.attacker.example" {
		t.Errorf("two names under attacker.example: causes %q and %q, want one, the domain's", a, b)
	}
}

// TestNamesHost: a host is named by a URL's authority, in any spelling,
// not by a name it is part of.
func TestNamesHost(t *testing.T) {
	for _, tc := range []struct {
		text, host string
		want       bool
	}{
		{`<html><img src="http://R.jina.ai/x"></html>`, "r.jina.ai", true},
		{"http://user@r.jina.ai:8080/", "r.jina.ai", true},
		{"http://[::ffff:127.0.0.1]/", "127.0.0.1", true},
		{"http://2130706433/", "127.0.0.1", true},
		{"http://data.test/", "a.test", false},
		{"see e and 1.1", "e", false},
		{"http://a.test.evil/", "a.test", false},
	} {
		if got := namesHost(tc.text, tc.host); got != tc.want {
			t.Errorf("namesHost(%q, %q) = %v, want %v", tc.text, tc.host, got, tc.want)
		}
	}
}
