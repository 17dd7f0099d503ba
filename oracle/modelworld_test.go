package oracle

import (
	"math"
	"net/netip"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/internal/spectable"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// The model's world, table-tested against SPEC §1, §6 and §7 directly:
// every expected answer here is worked out from the SPEC's text, not from
// the harness's world. (differential_test.go compares it with that world,
// internal/refworld.)

// TestModelResolverSPECSection6 reads the SPEC §6 table core's
// StaticResolve answers too.
func TestModelResolverSPECSection6(t *testing.T) {
	cases, err := spectable.ReadResolve("../internal/spec/testdata/static-resolve.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range cases {
		w := newModelWorld(newModelBase(scenario.WorldSpec{}))
		if got := w.resolve(tt.Host); got != tt.Want {
			t.Errorf("resolve(%q) = %v, want %v: %s", tt.Host, got, tt.Want, tt.Reason)
		}
	}
}

func TestModelDNSLinesCycleAndWin(t *testing.T) {
	a := func(s string) netip.Addr { return netip.MustParseAddr(s) }
	w := newModelWorld(newModelBase(scenario.WorldSpec{DNS: []scenario.DNSRecord{
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
	w := newModelWorld(newModelBase(scenario.WorldSpec{
		Files: []scenario.File{{Path: "/work/a", Data: "1"}, {Path: "//work/./b/", Data: "2"}, {Path: "/work/x/../a", Data: "3"}},
		Routes: []scenario.Route{
			{Host: "API.internal.", Path: "/status", Body: "ok"},
			{Host: "api.internal", Path: "/status", Body: "later"},
			{Host: "api.internal", Path: "/Status", Body: "case matters in paths"},
			{Host: "two.dots..", Path: "/", Body: "two"},
		},
		ToolOutputs: []scenario.ToolOutput{{Name: "search", Output: "a"}, {Name: "search", Output: "b"}, {Name: "echo", Output: "canned"}},
	}))
	read := func(p, want string, ok bool, reason string) {
		t.Helper()
		if got, gotOK := w.read(spec.Canonical(p)); got != want || gotOK != ok {
			t.Errorf("read(%q) = %q, %v; want %q, %v: %s", p, got, gotOK, want, ok, reason)
		}
	}
	read("/work/a", "3", true, "files are keyed by Clean(path); a later one replaces an earlier one")
	read("/work/b", "2", true, "a file's path is cleaned")
	read("/work/c", "", false, "nothing there")
	w.write(spec.Canonical("/work/c"), "new")
	w.write(spec.Canonical("/work/a"), "")
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
	w2 := newModelWorld(newModelBase(scenario.WorldSpec{}))
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
// halts max_wall whatever the budget, a tick of exactly 2^63−1 does not;
// the halt says which of the two rules gave it (a wall past the budget,
// or a clock past what int64 holds).
func TestModelWallHaltsPastTheTop(t *testing.T) {
	const maxI = math.MaxInt64
	read := core.Op{Kind: core.OpRead, Args: []string{"/work/a"}}
	for _, tt := range []struct {
		clock  scenario.TickClock
		wall   int64
		want   []core.Kind
		reason reasonCode // of the first max_wall
	}{
		{scenario.TickClock{Start: 0, Step: maxI}, maxI, []core.Kind{core.OK, core.MaxWall, core.MaxWall}, becauseWallUnheld},
		{scenario.TickClock{Start: maxI, Step: 1}, maxI, []core.Kind{core.MaxWall}, becauseWallUnheld},
		{scenario.TickClock{Start: maxI, Step: 0}, 0, []core.Kind{core.OK, core.OK, core.OK}, 0},
		{scenario.TickClock{Start: maxI - 1, Step: 1}, 1, []core.Kind{core.OK, core.MaxWall}, becauseWallUnheld},
		{scenario.TickClock{Start: 5, Step: math.MinInt64}, 0, []core.Kind{core.OK, core.OK, core.OK}, 0},
		{scenario.TickClock{Start: 0, Step: 1 << 56}, 1<<56 + 1, []core.Kind{core.OK, core.MaxWall}, becauseWall},
	} {
		g := must.Grant(core.GrantSpec{FSRead: []string{"/work"}, Budgets: core.Budgets{MaxOps: 10, MaxWall: tt.wall, MaxOutputBytes: 10}})
		m := newModel(g.Spec(), newModelWorld(newModelBase(scenario.WorldSpec{Files: []scenario.File{{Path: "/work/a", Data: "x"}}, Clock: tt.clock})))
		halted := false
		for i, want := range tt.want {
			got, why := m.predict(read)
			if got.Kind != want {
				t.Errorf("clock %+v, max_wall %d, op %d: %s, want %s", tt.clock, tt.wall, i+1, got.Kind, want)
			}
			if got.Kind == core.MaxWall && !halted && why.code != tt.reason {
				t.Errorf("clock %+v, max_wall %d, op %d: halted because %q, want %q", tt.clock, tt.wall, i+1, reasonText[why.code], reasonText[tt.reason])
			}
			halted = halted || got.Kind == core.MaxWall
		}
	}
}

// TestModelRedirectsStayOnTheHost: a redirect route counts as one whose
// next hop is on the fetched host when its Location is a path or a URL of
// that host, as SPEC §6 looks names up (case, a trailing dot, a port);
// not for another host, nor for a route that is no redirect.
func TestModelRedirectsStayOnTheHost(t *testing.T) {
	w := newModelWorld(newModelBase(scenario.WorldSpec{Routes: []scenario.Route{
		{Host: "r.test", Path: "/rel", Body: "/s", Redirect: true},
		{Host: "r.test", Path: "/abs", Body: "http://R.Test.:8080/s", Redirect: true},
		{Host: "r.test", Path: "/proto", Body: "//r.test/s", Redirect: true},
		{Host: "r.test", Path: "/off", Body: "http://evil.test/x", Redirect: true},
		{Host: "r.test", Path: "/page", Body: "/s"},
	}}))
	for _, tc := range []struct {
		path string
		want bool
	}{{"/rel", true}, {"/abs", true}, {"/proto", true}, {"/off", false}, {"/page", false}, {"/none", false}} {
		if got := w.redirects("r.test", tc.path); got != tc.want {
			t.Errorf("redirects(r.test, %s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
