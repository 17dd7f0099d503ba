package oracle

import (
	"math"
	"net/netip"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// The model's world, table-tested against SPEC §1, §6 and §7 directly:
// every expected answer here is worked out from the SPEC's text, not from
// core. (differential_test.go compares it with core's RefWorld.)

func TestModelResolverSPECSection6(t *testing.T) {
	const (
		public   = "203.0.113.1"
		loopback = "127.0.0.1"
		metadata = "169.254.169.254"
	)
	tests := []struct {
		host, want string
		reason     string
	}{
		{"api.internal", public, "every other name"},
		{"", public, "the empty name is every other name"},
		{".", public, "one dot ignored: the empty name"},
		{"127.0.0.1", loopback, "an IPv4 literal is itself"},
		{"127.1", loopback, "inet_aton: two parts, the last fills 24 bits"},
		{"127.0.1", loopback, "inet_aton: three parts, the last fills 16 bits"},
		{"2130706433", loopback, "inet_aton: one decimal part"},
		{"0x7f000001", loopback, "inet_aton: one hex part"},
		{"0X7F000001", loopback, "inet_aton: upper-case hex (names are case-insensitive anyway)"},
		{"0177.0.0.1", loopback, "inet_aton: an octal part"},
		{"0x7f.1", loopback, "inet_aton: hex, then a 24-bit part"},
		{"017700000001", loopback, "inet_aton: one octal part"},
		{"127.0.0.1 trailing", loopback, "inet_aton stops at white space"},
		{"1.2.3.4", "1.2.3.4", "a public literal is itself"},
		{"4294967295", "255.255.255.255", "the largest single part"},
		{"4294967296", public, "a part past 32 bits: a name"},
		{"1.16777215", "1.255.255.255", "the largest 24-bit last part"},
		{"1.16777216", public, "a last part past its 24 bits: a name"},
		{"256.1", public, "a leading part past 255: a name"},
		{"09.1.1.1", public, "9 is no octal digit: a name"},
		{"0x", public, "0x without hex digits: a name"},
		{"0x.1", public, "0x without hex digits: a name"},
		{"1..1", public, "an empty part: a name"},
		{"1.2.3.4.5", public, "five parts: a name"},
		{"1.2.3.4x", public, "trailing junk: a name"},
		{"+1.2.3.4", public, "a part starts with a digit"},
		{"::1", "::1", "an IPv6 literal is itself"},
		{"[::1]", "::1", "brackets allowed"},
		{"[FD00:EC2::254]", "fd00:ec2::254", "brackets and case"},
		{"::ffff:127.0.0.1", "::ffff:127.0.0.1", "a mapped literal is itself, still mapped"},
		{"fe80::1%eth0", "fe80::1%eth0", "a zone is part of the literal"},
		{"[1.2.3.4]", public, "a bracketed IPv4 address is no IPv6 literal: a name"},
		{"[::1", public, "an unclosed bracket: a name"},
		{"localhost", loopback, "localhost"},
		{"LocalHost", loopback, "case-insensitive"},
		{"a.b.localhost", loopback, "*.localhost"},
		{"notlocalhost", public, "a name ending in localhost, without the dot"},
		{"localhost.example", public, "localhost as a first label only"},
		{"metadata.google.internal", metadata, "a metadata name"},
		{"Metadata", metadata, "a metadata name, any case"},
		{"instance-data", metadata, "a metadata name"},
		{"x.metadata.google.internal", public, "only the exact metadata names"},
		{"KELVIN\u212a", public, "only ASCII folds: U+212A stays itself"},

		// Exactly one trailing dot is ignored, for literals and built-in names alike.
		{"localhost.", loopback, "one trailing dot ignored"},
		{"localhost..", public, "two dots: 'localhost.' is another name"},
		{"x.localhost.", loopback, "*.localhost, one dot"},
		{"x.localhost..", public, "two dots: its last label is empty"},
		{"METADATA.google.internal.", metadata, "case and one dot"},
		{"metadata.google.internal..", public, "two dots: another name"},
		{"instance-data..", public, "two dots: another name"},
		{"127.0.0.1.", loopback, "a literal, one dot"},
		{"127.1.", loopback, "a short spelling, one dot"},
		{"127.0.0.1..", public, "two dots: no inet_aton spelling, a name"},
		{"::1.", "::1", "an IPv6 literal, one dot"},
		{"[::1].", "::1", "a bracketed literal, one dot"},
		{"[::1]..", public, "two dots: a name"},
	}
	for _, tt := range tests {
		w := newModelWorld(newModelBase(core.WorldSpec{}))
		if got, want := w.resolve(tt.host), netip.MustParseAddr(tt.want); got != want {
			t.Errorf("resolve(%q) = %v, want %v: %s", tt.host, got, want, tt.reason)
		}
	}
}

func TestModelDNSLinesCycleAndWin(t *testing.T) {
	a := func(s string) netip.Addr { return netip.MustParseAddr(s) }
	w := newModelWorld(newModelBase(core.WorldSpec{DNS: []core.DNSRecord{
		{Host: "Rebind.Example.", Addrs: []netip.Addr{a("203.0.113.9"), a("127.0.0.1"), a("10.0.0.1")}},
		{Host: "localhost", Addrs: []netip.Addr{a("198.51.100.1")}},
		{Host: "gone.example", Addrs: []netip.Addr{a("10.0.0.2")}},
		{Host: "gone.example"},
		{Host: "twice.example", Addrs: []netip.Addr{a("10.0.0.3")}},
		{Host: "TWICE.example", Addrs: []netip.Addr{a("198.51.100.7")}},
		{Host: "dots.example..", Addrs: []netip.Addr{a("198.51.100.8")}},
		{Host: "127.0.0.1", Addrs: []netip.Addr{a("198.51.100.9")}},
	}}))
	tests := []struct {
		host, want string
		reason     string
	}{
		{"rebind.example", "203.0.113.9", "the first answer"},
		{"REBIND.EXAMPLE.", "127.0.0.1", "the second: one name whatever the case and one dot"},
		{"rebind.example", "10.0.0.1", "the third"},
		{"rebind.example", "203.0.113.9", "cycling back to the first"},
		{"rebind.example..", "203.0.113.1", "two dots: another name, no line"},
		{"rebind.example", "127.0.0.1", "the name with two dots took no turn"},
		{"localhost", "198.51.100.1", "a dns line wins over a built-in name"},
		{"localhost.", "198.51.100.1", "and over it with one dot"},
		{"gone.example", "203.0.113.1", "a later line with no address leaves the static answer"},
		{"twice.example", "198.51.100.7", "a later line for the same name replaces an earlier one"},
		{"dots.example..", "198.51.100.8", "the line's name is 'dots.example.', written with one dot more"},
		{"DOTS.example..", "198.51.100.8", "in any case"},
		{"dots.example.", "203.0.113.1", "this is 'dots.example', another name"},
		{"127.0.0.1", "198.51.100.9", "a dns line wins over a literal"},
		{"127.1", "127.0.0.1", "another spelling of it is another name"},
	}
	for _, tt := range tests {
		if got := w.resolve(tt.host); got != a(tt.want) {
			t.Errorf("resolve(%q) = %v, want %v: %s", tt.host, got, tt.want, tt.reason)
		}
	}
}

func TestModelFilesRoutesTools(t *testing.T) {
	w := newModelWorld(newModelBase(core.WorldSpec{
		Files: []core.File{{Path: "/work/a", Data: "1"}, {Path: "//work/./b/", Data: "2"}, {Path: "/work/x/../a", Data: "3"}},
		Routes: []core.Route{
			{Host: "API.internal.", Path: "/status", Body: "ok"},
			{Host: "api.internal", Path: "/status", Body: "later"},
			{Host: "api.internal", Path: "/Status", Body: "case matters in paths"},
			{Host: "two.dots..", Path: "/", Body: "two"},
		},
		ToolOutputs: []core.ToolOutput{{Name: "search", Output: "a"}, {Name: "search", Output: "b"}, {Name: "echo", Output: "canned"}},
	}))
	read := func(p, want string, ok bool, reason string) {
		t.Helper()
		if got, gotOK := w.read(core.Canonical(p)); got != want || gotOK != ok {
			t.Errorf("read(%q) = %q, %v; want %q, %v: %s", p, got, gotOK, want, ok, reason)
		}
	}
	read("/work/a", "3", true, "files are keyed by Clean(path); a later one replaces an earlier one")
	read("/work/b", "2", true, "a file's path is cleaned")
	read("/work/c", "", false, "nothing there")
	w.write(core.Canonical("/work/c"), "new")
	w.write(core.Canonical("/work/a"), "")
	read("/work/./c", "new", true, "a write is read back")
	read("/work/a", "", true, "an empty file is a file")

	fetch := func(h, p, want string, ok bool, reason string) {
		t.Helper()
		if got, gotOK := w.fetch(h, p); got != want || gotOK != ok {
			t.Errorf("fetch(%q, %q) = %q, %v; want %q, %v: %s", h, p, got, gotOK, want, ok, reason)
		}
	}
	fetch("api.internal", "/status", "later", true, "a later route replaces an earlier one for the same name")
	fetch("Api.Internal.", "/status", "later", true, "hosts compare as names: case, one dot")
	fetch("api.internal..", "/status", "", false, "two dots: another host")
	fetch("api.internal", "/Status", "case matters in paths", true, "paths match byte for byte")
	fetch("api.internal", "/status/", "", false, "paths are not cleaned")
	fetch("two.dots.", "/", "", false, "the route's host is 'two.dots.'")
	fetch("two.dots..", "/", "two", true, "as written")

	call := func(n, in, want string, ok bool, reason string) {
		t.Helper()
		if got, gotOK := w.call(n, in); got != want || gotOK != ok {
			t.Errorf("call(%q, %q) = %q, %v; want %q, %v: %s", n, in, got, gotOK, want, ok, reason)
		}
	}
	call("search", "x", "b", true, "the later canned output")
	call("echo", "x", "canned", true, "a canned output overrides a built-in tool")
	call("summarize", "hello", "summary of 5 bytes", true, "built-in summarize counts bytes")
	call("summarize", "é", "summary of 2 bytes", true, "bytes, not runes")
	call("Summarize", "x", "", false, "tool names are exact")
	call("ghost", "x", "", false, "no such tool")
	w2 := newModelWorld(newModelBase(core.WorldSpec{}))
	if got, ok := w2.call("echo", "in put"); got != "in put" || !ok {
		t.Errorf("built-in echo = %q, %v", got, ok)
	}
}

func TestModelTickClock(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	const past = minI + 7 // marks a tick past 2^63−1, whose value is meaningless (no test clock reads minI+7)
	tests := []struct {
		start, step int64
		want        []int64
		reason      string
	}{
		{0, 1, []int64{0, 1, 2, 3}, "start, start+step, …"},
		{5, 0, []int64{5, 5, 5}, "a stopped clock"},
		{-2, 1, []int64{-2, -1, 0, 1}, "through 0"},
		{0, maxI, []int64{0, maxI, past, past}, "exactly 2^63−1 is a tick; the next passes it"},
		{maxI, 0, []int64{maxI, maxI, maxI}, "stopped at the top: never past it"},
		{maxI, 1, []int64{maxI, past, past}, "started at the top"},
		{maxI - 1, 1, []int64{maxI - 1, maxI, past}, "landing on the top"},
		{10, maxI / 3, []int64{10, 10 + maxI/3, 10 + 2*(maxI/3), past}, "the fourth tick would be 2^63+9"},
		{minI, maxI, []int64{minI, -1, maxI - 1, past}, "from the bottom to past the top"},
		{0, -1, []int64{0, -1, -2}, "backwards"},
		{maxI, minI, []int64{maxI, -1, minI, minI}, "below −2^63: stays at the bottom, never past"},
		{-10, minI, []int64{-10, minI, minI}, "below −2^63 at once"},
	}
	for _, tt := range tests {
		c := tickClock{next: tt.start, step: tt.step}
		for k, want := range tt.want {
			got, isPast := c.now()
			if isPast != (want == past) || !isPast && got != want {
				t.Errorf("clock(%d, %d) read %d = %d, past=%v; want %d: %s", tt.start, tt.step, k, got, isPast, want, tt.reason)
			}
		}
	}
}

// TestModelWallHaltsPastTheTop runs the model alone: a tick past 2^63−1
// halts max_wall whatever the budget, a tick of exactly 2^63−1 does not.
func TestModelWallHaltsPastTheTop(t *testing.T) {
	const maxI = math.MaxInt64
	read := core.Op{Kind: core.OpRead, Args: []string{"/work/a"}}
	for _, tt := range []struct {
		clock core.TickClock
		wall  int64
		want  []core.Kind
	}{
		{core.TickClock{Start: 0, Step: maxI}, maxI, []core.Kind{core.OK, core.MaxWall, core.MaxWall}},
		{core.TickClock{Start: maxI, Step: 1}, maxI, []core.Kind{core.MaxWall}},
		{core.TickClock{Start: maxI, Step: 0}, 0, []core.Kind{core.OK, core.OK, core.OK}},
		{core.TickClock{Start: maxI - 1, Step: 1}, 1, []core.Kind{core.OK, core.MaxWall}},
		{core.TickClock{Start: 5, Step: math.MinInt64}, 0, []core.Kind{core.OK, core.OK, core.OK}},
	} {
		g := core.MustGrant(core.GrantSpec{FSRead: []string{"/work"}, Budgets: core.Budgets{MaxOps: 10, MaxWall: tt.wall, MaxOutputBytes: 10}})
		m := newModel(g, newModelBase(core.WorldSpec{Files: []core.File{{Path: "/work/a", Data: "x"}}, Clock: tt.clock}))
		for i, want := range tt.want {
			if got, _ := m.predict(read); got.Kind != want {
				t.Errorf("clock %+v, max_wall %d, op %d: %s, want %s", tt.clock, tt.wall, i+1, got.Kind, want)
			}
		}
	}
}

// TestAtonAddressAgreesWithCore compares the model's inet_aton reading
// with core.ParseInetAton on every string of up to five bytes over the
// bytes that matter, and on longer spellings. The two are written
// differently (a byte scanner in core, parts cut at dots here).
func TestAtonAddressAgreesWithCore(t *testing.T) {
	const alphabet = "019x.8 a"
	n := 0
	var walk func(string, int)
	walk = func(s string, depth int) {
		n++
		got, gotOK := atonAddress(s)
		want, wantOK := core.ParseInetAton(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("atonAddress(%q) = %v, %v; core says %v, %v", s, got, gotOK, want, wantOK)
		}
		if depth > 0 {
			for i := range len(alphabet) {
				walk(s+alphabet[i:i+1], depth-1)
			}
		}
	}
	walk("", 6)
	for _, s := range []string{"4294967295", "4294967296", "0xffffffff", "0x100000000", "037777777777", "040000000000",
		"1.16777215", "1.16777216", "1.2.65535", "1.2.65536", "1.2.3.255", "1.2.3.256", "0x7f.0.0.1", "0X7F.0X0.0.01",
		"99999999999999999999999", "0x0000000000000000001", "1.2.3.4\t", "1.2.3.4\v5", strings.Repeat("0", 40) + "1"} {
		got, gotOK := atonAddress(s)
		want, wantOK := core.ParseInetAton(s)
		if got != want || gotOK != wantOK {
			t.Errorf("atonAddress(%q) = %v, %v; core says %v, %v", s, got, gotOK, want, wantOK)
		}
	}
	if n < 100000 {
		t.Fatalf("only %d strings", n)
	}
}
