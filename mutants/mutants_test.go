package mutants

import (
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/randscenario"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// required is the list: every one must be registered.
var required = []string{
	"raw-prefix", "no-boundary", "no-belt", "substring-dotdot",
	"act-then-check-write", "read-then-check", "fetch-then-check",
	"deny-list-egress", "lookup-before-allowlist", "no-internal-check",
	"resolve-twice", "no-latch", "charge-after-dispatch",
	"output-uncharged-fetch", "off-by-one-ops", "machine-clock",
	"leaky-grant", "zero-means-unlimited", "halt-gate-charges",
	"malformed-passthrough",
	// links
	"no-realpath", "realpath-before-check", "unresolved-write",
	"realpath-unchecked", "resolve-parent-only",
	// one per SPEC dimension point family (Mutant.Dimension)
	"internal-string-prefixes", "v6-range-masks", "wall-before-ops",
	"output-in-runes", "ignores-clock-overflow", "off-by-one-output",
	"budget-plus-one-overflow", "root-itself-denied", "host-case-fold",
}

// TestDimensions: every mutant's Dimension is one of the seven SPEC
// dimension IDs or "", and every one of the seven exposes some mutant.
func TestDimensions(t *testing.T) {
	want := []string{"internal-range", "budget", "budget-pair", "clock", "bytes", "path-shape", "host-shape"}
	if diff := cmp.Diff(want, Dimensions()); diff != "" {
		t.Errorf("Dimensions() mismatch (-want +got):\n%s", diff)
	}
	count := map[string]int{}
	for _, m := range All() {
		if m.Dimension != "" && !slices.Contains(want, m.Dimension) {
			t.Errorf("mutant %s: dimension %q is none of %v", m.Name, m.Dimension, want)
		}
		count[m.Dimension]++
	}
	for _, d := range want {
		if count[d] == 0 {
			t.Errorf("no mutant has dimension %s", d)
		}
	}
	// The dimension mutants say which dimension exposes them; the others
	// the task names must say it too.
	for name, d := range map[string]string{
		"internal-string-prefixes": "internal-range", "v6-range-masks": "internal-range",
		"wall-before-ops": "budget-pair", "output-in-runes": "bytes", "ignores-clock-overflow": "clock",
		"off-by-one-output": "budget", "budget-plus-one-overflow": "budget", "root-itself-denied": "path-shape",
		"host-case-fold": "host-shape", "raw-prefix": "path-shape", "no-boundary": "path-shape",
		"malformed-passthrough": "bytes", "off-by-one-ops": "budget", "zero-means-unlimited": "budget",
		"deny-list-egress": "host-shape", "no-internal-check": "internal-range",
		// machine-clock differs from the reference on every op whatever
		// the clock's shape: no dimension's points expose it.
		"machine-clock": "",
	} {
		if m, ok := Lookup(name); !ok || m.Dimension != d {
			t.Errorf("mutant %s: dimension %q, want %q", name, m.Dimension, d)
		}
	}
	// Dimensions hands out a copy.
	Dimensions()[0] = "scribbled"
	if Dimensions()[0] != want[0] {
		t.Error("Dimensions() returned its own slice")
	}
}

func TestRegistry(t *testing.T) {
	ms := All()
	if len(ms) < len(required) {
		t.Errorf("%d mutants registered, want at least %d", len(ms), len(required))
	}
	names, flags := map[string]bool{}, map[string]bool{}
	for _, m := range ms {
		switch {
		case m.Name == "" || strings.TrimSpace(m.Name) != m.Name || strings.ContainsAny(m.Name, " \t/:"):
			t.Errorf("mutant name %q is empty or not a bare word", m.Name)
		case names[m.Name]:
			t.Errorf("mutant name %q is registered twice", m.Name)
		case m.Factory == nil:
			t.Errorf("mutant %s has no factory", m.Name)
		}
		names[m.Name] = true
		switch {
		case m.RedFlag == "":
			t.Errorf("mutant %s has no red flag", m.Name)
		case flags[m.RedFlag]:
			t.Errorf("mutant %s shares its red flag with another mutant", m.Name)
		case !strings.HasSuffix(m.RedFlag, ".") || strings.Count(m.RedFlag, ". ") > 0:
			t.Errorf("mutant %s: the red flag must be one sentence ending in '.': %q", m.Name, m.RedFlag)
		}
		flags[m.RedFlag] = true
	}
	for _, name := range required {
		if !names[name] {
			t.Errorf("required mutant %s is not registered", name)
		}
	}
}

func TestLookupAndNames(t *testing.T) {
	names := Names()
	if !sort.StringsAreSorted(names) {
		t.Errorf("Names() is not sorted: %v", names)
	}
	ms := All()
	if len(names) != len(ms) || len(ms) != len(all) {
		t.Fatalf("Names() has %d names, All() %d mutants, the table %d", len(names), len(ms), len(all))
	}
	for i, m := range ms {
		if names[i] != m.Name {
			t.Errorf("Names()[%d] = %q, All()[%d].Name = %q", i, names[i], i, m.Name)
		}
		got, ok := Lookup(m.Name)
		if !ok || got.Name != m.Name || got.RedFlag != m.RedFlag {
			t.Errorf("Lookup(%q) = %q, %v", m.Name, got.Name, ok)
		}
	}
	for _, bad := range []string{"", "reference", "mutant:raw-prefix", "RAW-PREFIX", "raw-prefix "} {
		if _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) found a mutant", bad)
		}
	}
	// All hands out a copy: sorting or scribbling on it changes nothing.
	ms[0].Name = "scribbled"
	if All()[0].Name == "scribbled" {
		t.Error("All() returned the registry itself")
	}
}

// TestEveryDefectHasAMutant guards the table against a defect switch that no
// mutant uses, or two mutants sharing one: each mutant builds a sandbox of
// its own defect, and every defect is some mutant's.
func TestEveryDefectHasAMutant(t *testing.T) {
	g := must.Grant(core.GrantSpec{})
	owner := map[defect]string{}
	for _, m := range all {
		sb, err := m.Factory(g, refworld.New(scenario.WorldSpec{}))
		if err != nil {
			t.Fatalf("mutant %s: %v", m.Name, err)
		}
		s, ok := sb.(*sandbox)
		if !ok {
			t.Fatalf("mutant %s builds a %T, not this package's sandbox", m.Name, sb)
		}
		if s.d == faithful {
			t.Errorf("mutant %s has no defect switched in", m.Name)
		}
		if o, dup := owner[s.d]; dup {
			t.Errorf("mutants %s and %s share defect %d", o, m.Name, s.d)
		}
		owner[s.d] = m.Name
	}
	for d := faithful + 1; d < numDefects; d++ {
		if _, ok := owner[d]; !ok {
			t.Errorf("defect %d of pipeline.go is no mutant's", d)
		}
	}
}

// trace is everything observable about one run: per op, the result, the
// usage after it, the journal entries it added and the clock reads so far.
type trace []string

func run(t testing.TB, f core.Factory, g core.Grant, ws scenario.WorldSpec, ops []core.Op) trace {
	t.Helper()
	w := refworld.New(ws)
	sb, err := f(g, w)
	if err != nil {
		t.Fatalf("building the sandbox: %v", err)
	}
	out := trace{fmt.Sprintf("built: clock reads %d", w.ClockReads())}
	for _, op := range ops { // every op, after a halt too
		j := w.JournalLen()
		r := sb.Run(op)
		out = append(out, fmt.Sprintf("%+v usage %+v journal %v clock reads %d", r, sb.Usage(), w.Journal()[j:], w.ClockReads()))
	}
	return out
}

func corpusScenarios(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("../corpus", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sbx") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus scenarios: %v", err)
	}
	return files
}

// TestFaithfulIsTheReference: the pipeline with no defect switched in must
// be the reference, op for op, on every corpus scenario, and pass the
// oracle. That is what makes each mutant differ from the reference in its
// one defect only.
func TestFaithfulIsTheReference(t *testing.T) {
	for _, name := range corpusScenarios(t) {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenario.Parse(name, src)
		if err != nil {
			t.Fatal(err)
		}
		g, err := core.NewGrant(sc.Grant)
		if err != nil {
			t.Fatal(err)
		}
		ops := make([]core.Op, len(sc.Steps))
		for i, s := range sc.Steps {
			ops[i] = s.Op
		}
		want := run(t, core.ReferenceFactory, g, sc.World, ops)
		if diff := cmp.Diff(want, run(t, faithful.factory(), g, sc.World, ops)); diff != "" {
			t.Errorf("%s: faithful pipeline trace mismatch (-want +got):\n%s", name, diff)
		}
		out, err := replay.Run(name, sc, faithful.factory(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Failed() {
			t.Errorf("%s: the faithful pipeline fails: findings %v, unmet %v", name, out.Findings, out.Unmet())
		}
	}
}

// TestFaithfulRandom compares the faithful pipeline with the reference on
// random small scenarios drawn from a hostile alphabet.
func TestFaithfulRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		g, ws, ops := randscenario.Draw(rng)
		want := run(t, core.ReferenceFactory, g, ws, ops)
		if diff := cmp.Diff(want, run(t, faithful.factory(), g, ws, ops)); diff != "" {
			t.Fatalf("scenario %d (ops %v): faithful pipeline trace mismatch (-want +got):\n%s", i, ops, diff)
		}
	}
}

// TestEveryMutantDiffersRandomly: on the same random scenarios each mutant
// is observably different from the reference somewhere (machine-clock at
// least by never reading the injected clock).
func TestEveryMutantDiffersRandomly(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type sc struct {
		g   core.Grant
		ws  scenario.WorldSpec
		ops []core.Op
	}
	var cases []sc
	for range 3000 {
		g, ws, ops := randscenario.Draw(rng)
		cases = append(cases, sc{g, ws, ops})
	}
	for _, m := range All() {
		switch m.Name {
		case "leaky-grant":
			continue // differs only in what Grant() hands out: TestLeakyGrantWidens
		case "nat64-prefix-32", "no-6to4-unmap", "no-compatible-unmap", "nat64-local-use-public":
			continue // random hosts are never in 64:ff9b::/32, 2002::/16 or ::/96: TestEmbeddingGaps
		case "roots-resolved-at-start":
			continue // random worlds put no link at or above a root: TestRootsResolvedAtStart
		case "dotless-names-trusted":
			continue // random hosts are never names of one label that resolve inside: TestDotlessNamesTrusted
		case "win-trim-check", "query-stripped-check", "first-line-check", "truncated-belt":
			continue // random paths never spell a root so, nor pass 1024 bytes: TestSpellingGaps
		case "teredo-carried", "zone-blinds-prefixes", "host-percent-decoded", "host-idna-encoded":
			continue // random hosts are never Teredo, zoned or encoded: TestEgressShapeGaps
		case "tool-unique-prefix", "tool-namespace-stripped", "tool-call-syntax", "tool-width-folded",
			"tool-percent-decoded", "kind-aliases", "utf8-above-max", "modified-utf8", "malformed-before-unknown":
			continue // random ops never respell a granted tool, alias a kind, pass U+10FFFF or C0 80, or give an unknown kind a bad argument: TestOpShapeGaps
		}
		differs := false
		for _, c := range cases {
			if !slices.Equal(run(t, m.Factory, c.g, c.ws, c.ops), run(t, core.ReferenceFactory, c.g, c.ws, c.ops)) {
				differs = true
				break
			}
		}
		if !differs {
			t.Errorf("mutant %s behaves as the reference on %d random scenarios", m.Name, len(cases))
		}
	}
}

// The direct tests below each show one defect in Go, where a scenario
// file cannot reach.

func build(t *testing.T, name string, spec core.GrantSpec, ws scenario.WorldSpec) (core.Sandbox, *refworld.World) {
	t.Helper()
	m, ok := Lookup(name)
	if !ok {
		t.Fatalf("no mutant %s", name)
	}
	w := refworld.New(ws)
	sb, err := m.Factory(must.Grant(spec), w)
	if err != nil {
		t.Fatalf("building mutant %s: %v", name, err)
	}
	return sb, w
}

var roomy = core.Budgets{MaxOps: 100, MaxWall: 100, MaxOutputBytes: 100}

// TestLeakyGrantWidens: writing into what Grant() hands out really widens
// the authority the mutant enforces; the reference is unmoved.
func TestLeakyGrantWidens(t *testing.T) {
	spec := core.GrantSpec{FSRead: []string{"/work/"}, Budgets: roomy}
	ws := scenario.WorldSpec{Files: []scenario.File{{Path: "/etc/passwd", Data: "root"}}, Clock: scenario.TickClock{Step: 1}}
	for _, tc := range []struct {
		f    core.Factory
		want core.Kind
	}{{core.ReferenceFactory, core.FSReadDenied}, {mustFactory(t, "leaky-grant"), core.OK}} {
		sb, err := tc.f(must.Grant(spec), refworld.New(ws))
		if err != nil {
			t.Fatal(err)
		}
		sb.Grant().FSRead()[0] = "/"
		if got := sb.Run(core.Op{Kind: core.OpRead, Args: []string{"/etc/passwd"}}); got.Kind != tc.want {
			t.Errorf("after widening: got %v, want %v", got.Kind, tc.want)
		}
	}
}

func mustFactory(t *testing.T, name string) core.Factory {
	t.Helper()
	m, ok := Lookup(name)
	if !ok {
		t.Fatalf("no mutant %s", name)
	}
	return m.Factory
}

// TestMachineClockNeverReadsTheWorldClock: the injected clock is never
// read, at build or per op.
func TestMachineClockNeverReadsTheWorldClock(t *testing.T) {
	sb, w := build(t, "machine-clock", core.GrantSpec{Budgets: roomy}, scenario.WorldSpec{Clock: scenario.TickClock{Step: 1000}})
	for range 3 {
		if r := sb.Run(core.Op{Kind: "exec"}); r.Kind != core.UnknownOp {
			t.Fatalf("got %v, want unknown_op", r.Kind)
		}
	}
	if n := w.ClockReads(); n != 0 {
		t.Errorf("the machine-clock mutant read the injected clock %d times", n)
	}
}

// TestActThenCheckWriteRollsBack: a denied write journals the realpath,
// the snapshot read, the write and the rollback; old content comes back, and a file
// that did not exist is left empty.
func TestActThenCheckWriteRollsBack(t *testing.T) {
	sb, w := build(t, "act-then-check-write", core.GrantSpec{FSWrite: []string{"/work/out/"}, Budgets: roomy},
		scenario.WorldSpec{Files: []scenario.File{{Path: "/etc/passwd", Data: "root"}}, Clock: scenario.TickClock{Step: 1}})
	for _, p := range []string{"/etc/passwd", "/etc/new"} {
		if r := sb.Run(core.Op{Kind: core.OpWrite, Args: []string{p, "pwned"}}); r.Kind != core.FSWriteDenied {
			t.Fatalf("write %s: got %v", p, r.Kind)
		}
	}
	var got []string
	for _, e := range w.Journal() {
		got = append(got, e.String())
	}
	want := []string{"realpath /etc/passwd -> /etc/passwd", "read /etc/passwd", "write /etc/passwd pwned", "write /etc/passwd root",
		"realpath /etc/new -> /etc/new", "read /etc/new", "write /etc/new pwned", `write /etc/new ""`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("journal mismatch (-want +got):\n%s", diff)
	}
	if files := w.Files(); files["/etc/passwd"] != "root" || files["/etc/new"] != "" {
		t.Errorf("VFS after rollback: %q", files)
	}
}

// TestResolveTwiceFetchesTheSecondAnswer: the address checked is public,
// the address used is the next DNS answer.
func TestResolveTwiceFetchesTheSecondAnswer(t *testing.T) {
	pub, lo := netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("127.0.0.1")
	sb, w := build(t, "resolve-twice", core.GrantSpec{NetHosts: []string{"r.example"}, Budgets: roomy},
		scenario.WorldSpec{DNS: []scenario.DNSRecord{{Host: "r.example", Addrs: []netip.Addr{pub, lo}}}, Clock: scenario.TickClock{Step: 1}})
	sb.Run(core.Op{Kind: core.OpFetch, Args: []string{"r.example", "/"}})
	j := w.Journal()
	if len(j) != 3 || j[0].Addr != pub || j[1].Addr != lo || j[2].Call != refworld.CallFetch || j[2].Addr != lo {
		t.Errorf("journal %v, want resolve -> %v, resolve -> %v, fetch from %v", j, pub, lo, lo)
	}
}

// TestHaltGateCharges: after the halt, each op moves the op counter and
// reads the clock once, and the kind stays latched.
func TestHaltGateCharges(t *testing.T) {
	sb, w := build(t, "halt-gate-charges", core.GrantSpec{}, scenario.WorldSpec{Clock: scenario.TickClock{Step: 1}})
	for i := int64(1); i <= 3; i++ {
		r := sb.Run(core.Op{Kind: "exec"})
		if r.Kind != core.MaxOps || !r.Hard {
			t.Fatalf("op %d: got %+v, want max_ops (hard)", i, r)
		}
		if u := sb.Usage(); u.Ops != i {
			t.Errorf("op %d: usage ops %d", i, u.Ops)
		}
	}
	// t0, then one read per op after the first (which halted on max_ops
	// before its clock read).
	if n := w.ClockReads(); n != 3 {
		t.Errorf("clock reads %d, want 3", n)
	}
}

// TestDefectsAtTheGoLevel: each remaining mutant against the reference on
// one op sequence, where the defect shows in the results.
func TestDefectsAtTheGoLevel(t *testing.T) {
	read := func(p string) core.Op { return core.Op{Kind: core.OpRead, Args: []string{p}} }
	write := func(p string) core.Op { return core.Op{Kind: core.OpWrite, Args: []string{p, "pwned"}} }
	fetch := func(h string) core.Op { return core.Op{Kind: core.OpFetch, Args: []string{h, "/"}} }
	exec := core.Op{Kind: "exec"}
	files := []scenario.File{{Path: "/work/a", Data: "hello"}, {Path: "/workshop/x", Data: "LEAK"}, {Path: "/work/..h", Data: "dot"}}
	routes := []scenario.Route{{Host: "x.example", Path: "/", Body: "body"}, {Host: "localhost", Path: "/", Body: "admin"}}
	links := []scenario.Link{{Path: "/work/ln", Target: "/workshop/x"}, {Path: "/etc/ln", Target: "/work/a"}}
	for _, tc := range []struct {
		mutant string
		spec   core.GrantSpec
		ops    []core.Op
		ref    []core.Kind // the reference's kinds; the mutant's differ
	}{
		{"raw-prefix", core.GrantSpec{FSRead: []string{"/work"}}, []core.Op{read("/workshop/x"), read("/work/../work/a")}, []core.Kind{core.FSReadDenied, core.PathTraversal}},
		{"no-boundary", core.GrantSpec{FSRead: []string{"/work/"}}, []core.Op{read("/workshop/x")}, []core.Kind{core.FSReadDenied}},
		{"no-belt", core.GrantSpec{FSRead: []string{"/work/"}}, []core.Op{read("/work/../work/a")}, []core.Kind{core.PathTraversal}},
		{"substring-dotdot", core.GrantSpec{FSRead: []string{"/work/"}}, []core.Op{read("/work/..h")}, []core.Kind{core.OK}},
		{"read-then-check", core.GrantSpec{}, []core.Op{read("/workshop/x")}, []core.Kind{core.FSReadDenied}},
		{"fetch-then-check", core.GrantSpec{}, []core.Op{fetch("x.example")}, []core.Kind{core.EgressDenied}},
		{"deny-list-egress", core.GrantSpec{}, []core.Op{fetch("x.example")}, []core.Kind{core.EgressDenied}},
		{"lookup-before-allowlist", core.GrantSpec{}, []core.Op{fetch("x.example")}, []core.Kind{core.EgressDenied}},
		{"no-internal-check", core.GrantSpec{NetHosts: []string{"localhost"}}, []core.Op{fetch("localhost")}, []core.Kind{core.EgressInternal}},
		{"no-latch", core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 9, MaxWall: 9, MaxOutputBytes: 3}}, []core.Op{read("/work/a"), exec}, []core.Kind{core.MaxOutputBytes, core.MaxOutputBytes}},
		{"charge-after-dispatch", core.GrantSpec{Budgets: core.Budgets{MaxOps: 1, MaxWall: 9}}, []core.Op{exec, exec}, []core.Kind{core.UnknownOp, core.MaxOps}},
		{"output-uncharged-fetch", core.GrantSpec{NetHosts: []string{"x.example"}, Budgets: core.Budgets{MaxOps: 9, MaxWall: 9, MaxOutputBytes: 3}}, []core.Op{fetch("x.example")}, []core.Kind{core.MaxOutputBytes}},
		{"off-by-one-ops", core.GrantSpec{Budgets: core.Budgets{MaxOps: 1, MaxWall: 9}}, []core.Op{exec}, []core.Kind{core.UnknownOp}},
		{"zero-means-unlimited", core.GrantSpec{Budgets: core.Budgets{MaxOps: 9, MaxWall: 0}}, []core.Op{exec}, []core.Kind{core.MaxWall}},
		{"malformed-passthrough", core.GrantSpec{FSRead: []string{"/work/"}}, []core.Op{read("/work/a\xff")}, []core.Kind{core.MalformedOp}},
		{"no-realpath", core.GrantSpec{FSRead: []string{"/work/"}}, []core.Op{read("/work/ln")}, []core.Kind{core.FSReadDenied}},
		{"realpath-before-check", core.GrantSpec{FSRead: []string{"/work/"}}, []core.Op{read("/etc/ln")}, []core.Kind{core.FSReadDenied}},
		{"unresolved-write", core.GrantSpec{FSWrite: []string{"/work/"}}, []core.Op{write("/work/ln")}, []core.Kind{core.FSWriteDenied}},
		{"realpath-unchecked", core.GrantSpec{FSRead: []string{"/work/"}}, []core.Op{read("/work/ln")}, []core.Kind{core.FSReadDenied}},
		{"resolve-parent-only", core.GrantSpec{FSWrite: []string{"/work/"}}, []core.Op{write("/work/ln")}, []core.Kind{core.FSWriteDenied}},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			spec := tc.spec
			if spec.Budgets == (core.Budgets{}) {
				spec.Budgets = roomy
			}
			ws := scenario.WorldSpec{Files: files, Routes: routes, Links: links, Clock: scenario.TickClock{Step: 1}}
			g := must.Grant(spec)
			kinds := func(f core.Factory) []core.Kind {
				sb, err := f(g, refworld.New(ws))
				if err != nil {
					t.Fatal(err)
				}
				var out []core.Kind
				for _, op := range tc.ops {
					out = append(out, sb.Run(op).Kind)
				}
				return out
			}
			if diff := cmp.Diff(tc.ref, kinds(core.ReferenceFactory)); diff != "" {
				t.Fatalf("reference kinds mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ref, kinds(faithful.factory())); diff != "" {
				t.Fatalf("faithful pipeline kinds mismatch (-want +got):\n%s", diff)
			}
			// Where the results agree, the defect is in the journal: compare
			// whole traces instead.
			m := mustFactory(t, tc.mutant)
			if slices.Equal(run(t, m, g, ws, tc.ops), run(t, core.ReferenceFactory, g, ws, tc.ops)) {
				t.Errorf("mutant %s behaves as the reference here", tc.mutant)
			}
		})
	}
}

// TestLinkMutantJournals shows where each link mutant's defect lands in
// the journal and the VFS, next to the reference, on one world: /work/ln
// is a link out of the roots, /work/d a linked parent, /etc/ln a link from
// outside the roots back in.
func TestLinkMutantJournals(t *testing.T) {
	ws := scenario.WorldSpec{
		Files: []scenario.File{{Path: "/work/a", Data: "hello"}, {Path: "/etc/secret", Data: "LEAK"}},
		Links: []scenario.Link{{Path: "/work/ln", Target: "/etc/secret"}, {Path: "/work/d", Target: "/etc"}, {Path: "/etc/ln", Target: "/work/a"}},
		Clock: scenario.TickClock{Step: 1},
	}
	spec := core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/"}, Budgets: roomy}
	read := core.Op{Kind: core.OpRead, Args: []string{"/work/ln"}}
	write := core.Op{Kind: core.OpWrite, Args: []string{"/work/d/new", "x"}}
	outside := core.Op{Kind: core.OpRead, Args: []string{"/etc/ln"}}
	for _, tc := range []struct {
		sut     string // "" is the reference
		op      core.Op
		kind    core.Kind
		journal []string
		etc     string // what /etc/new holds after the op: "" when nothing wrote it
	}{
		{"", read, core.FSReadDenied, []string{"realpath /work/ln -> /etc/secret"}, ""},
		{"", write, core.FSWriteDenied, []string{"realpath /work/d/new -> /etc/new"}, ""},
		{"", outside, core.FSReadDenied, nil, ""},
		{"no-realpath", read, core.OK, []string{"read /work/ln"}, ""},
		{"no-realpath", write, core.OK, []string{"write /work/d/new x"}, "x"},
		{"realpath-before-check", outside, core.FSReadDenied, []string{"realpath /etc/ln -> /work/a"}, ""},
		{"realpath-before-check", read, core.FSReadDenied, []string{"realpath /work/ln -> /etc/secret"}, ""},
		{"unresolved-write", read, core.FSReadDenied, []string{"realpath /work/ln -> /etc/secret"}, ""},
		{"unresolved-write", write, core.OK, []string{"write /work/d/new x"}, "x"},
		{"realpath-unchecked", read, core.OK, []string{"realpath /work/ln -> /etc/secret", "read /etc/secret"}, ""},
		{"realpath-unchecked", write, core.OK, []string{"realpath /work/d/new -> /etc/new", "write /etc/new x"}, "x"},
		{"resolve-parent-only", read, core.OK, []string{"realpath /work -> /work", "read /work/ln"}, ""},
		{"resolve-parent-only", write, core.FSWriteDenied, []string{"realpath /work/d -> /etc"}, ""},
	} {
		name := tc.sut
		if name == "" {
			name = "reference"
		}
		t.Run(name+" "+tc.op.Args[0], func(t *testing.T) {
			f := core.ReferenceFactory
			if tc.sut != "" {
				f = mustFactory(t, tc.sut)
			}
			w := refworld.New(ws)
			sb, err := f(must.Grant(spec), w)
			if err != nil {
				t.Fatal(err)
			}
			if r := sb.Run(tc.op); r.Kind != tc.kind {
				t.Errorf("got %v, want %v", r.Kind, tc.kind)
			}
			var got []string
			for _, e := range w.Journal() {
				got = append(got, e.String())
			}
			if diff := cmp.Diff(tc.journal, got); diff != "" {
				t.Errorf("journal mismatch (-want +got):\n%s", diff)
			}
			if got := w.Files()["/etc/new"]; got != tc.etc {
				t.Errorf("/etc/new holds %q, want %q", got, tc.etc)
			}
			if got := w.Files()["/etc/secret"]; got != "LEAK" {
				t.Errorf("/etc/secret holds %q", got)
			}
		})
	}
}

// TestDimensionMutantsAtTheGoLevel: each dimension mutant against the
// reference on one point of its dimension, where the kinds differ.
func TestDimensionMutantsAtTheGoLevel(t *testing.T) {
	read := func(p string) core.Op { return core.Op{Kind: core.OpRead, Args: []string{p}} }
	fetch := func(h string) core.Op { return core.Op{Kind: core.OpFetch, Args: []string{h, "/"}} }
	echo := func(in string) core.Op { return core.Op{Kind: core.OpTool, Args: []string{"echo", in}} }
	exec := core.Op{Kind: "exec"}
	tick := scenario.TickClock{Step: 1}
	for _, tc := range []struct {
		mutant    string
		spec      core.GrantSpec
		clock     scenario.TickClock
		ops       []core.Op
		ref, got  []core.Kind
		refOutput int64 // usage.Output after the ops, on the reference
	}{
		{"internal-string-prefixes", core.GrantSpec{NetHosts: []string{"172.31.255.254"}, Budgets: roomy}, tick,
			[]core.Op{fetch("172.31.255.254")}, []core.Kind{core.EgressInternal}, []core.Kind{core.NotFound}, 0},
		{"internal-string-prefixes", core.GrantSpec{NetHosts: []string{"::ffff:100.127.0.1"}, Budgets: roomy}, tick,
			[]core.Op{fetch("::ffff:100.127.0.1")}, []core.Kind{core.EgressInternal}, []core.Kind{core.NotFound}, 0},
		{"v6-range-masks", core.GrantSpec{NetHosts: []string{"fc00::"}, Budgets: roomy}, tick,
			[]core.Op{fetch("fc00::")}, []core.Kind{core.EgressInternal}, []core.Kind{core.NotFound}, 0},
		{"v6-range-masks", core.GrantSpec{NetHosts: []string{"[febf:ffff::1]"}, Budgets: roomy}, tick,
			[]core.Op{fetch("[febf:ffff::1]")}, []core.Kind{core.EgressInternal}, []core.Kind{core.NotFound}, 0},
		{"wall-before-ops", core.GrantSpec{Budgets: core.Budgets{MaxOps: 1, MaxWall: 1}}, tick,
			[]core.Op{exec, exec}, []core.Kind{core.UnknownOp, core.MaxOps}, []core.Kind{core.UnknownOp, core.MaxWall}, 0},
		{"output-in-runes", core.GrantSpec{Tools: []string{"echo"}, Budgets: core.Budgets{MaxOps: 9, MaxWall: 9, MaxOutputBytes: 5}}, tick,
			[]core.Op{echo("héllo")}, []core.Kind{core.MaxOutputBytes}, []core.Kind{core.OK}, 0},
		{"ignores-clock-overflow", core.GrantSpec{Budgets: core.Budgets{MaxOps: 9, MaxWall: math.MaxInt64}}, scenario.TickClock{Start: 1, Step: math.MaxInt64},
			[]core.Op{exec}, []core.Kind{core.MaxWall}, []core.Kind{core.UnknownOp}, 0},
		{"off-by-one-output", core.GrantSpec{Tools: []string{"echo"}, Budgets: core.Budgets{MaxOps: 9, MaxWall: 9, MaxOutputBytes: 5}}, tick,
			[]core.Op{echo("hello")}, []core.Kind{core.OK}, []core.Kind{core.MaxOutputBytes}, 5},
		{"off-by-one-output", core.GrantSpec{Tools: []string{"echo"}, Budgets: core.Budgets{MaxOps: 9, MaxWall: 9}}, tick,
			[]core.Op{echo("")}, []core.Kind{core.OK}, []core.Kind{core.MaxOutputBytes}, 0},
		{"budget-plus-one-overflow", core.GrantSpec{Budgets: core.Budgets{MaxOps: math.MaxInt64, MaxWall: 9}}, tick,
			[]core.Op{exec}, []core.Kind{core.UnknownOp}, []core.Kind{core.MaxOps}, 0},
		{"budget-plus-one-overflow", core.GrantSpec{Budgets: core.Budgets{MaxOps: 9, MaxWall: math.MaxInt64}}, tick,
			[]core.Op{exec}, []core.Kind{core.UnknownOp}, []core.Kind{core.MaxWall}, 0},
		{"budget-plus-one-overflow", core.GrantSpec{Tools: []string{"echo"}, Budgets: core.Budgets{MaxOps: 9, MaxWall: 9, MaxOutputBytes: math.MaxInt64}}, tick,
			[]core.Op{echo("x")}, []core.Kind{core.OK}, []core.Kind{core.MaxOutputBytes}, 1},
		{"root-itself-denied", core.GrantSpec{FSRead: []string{"/work/"}, Budgets: roomy}, tick,
			[]core.Op{read("/work/"), read("/work/a")}, []core.Kind{core.NotFound, core.OK}, []core.Kind{core.FSReadDenied, core.OK}, 5},
		{"nat64-prefix-32", core.GrantSpec{NetHosts: []string{"64:ff9b:1::cb00:7101", "64:ff9b::1:0:0"}, Budgets: roomy}, tick,
			[]core.Op{fetch("64:ff9b:1::cb00:7101"), fetch("64:ff9b::1:0:0")}, []core.Kind{core.EgressInternal, core.NotFound}, []core.Kind{core.NotFound, core.EgressInternal}, 0},
		{"no-6to4-unmap", core.GrantSpec{NetHosts: []string{"2002:7f00:1::"}, Budgets: roomy}, tick,
			[]core.Op{fetch("2002:7f00:1::")}, []core.Kind{core.EgressInternal}, []core.Kind{core.NotFound}, 0},
		{"host-case-fold", core.GrantSpec{NetHosts: []string{"x.example"}, Budgets: roomy}, tick,
			[]core.Op{fetch("X.Example")}, []core.Kind{core.EgressDenied}, []core.Kind{core.OK}, 0},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			ws := scenario.WorldSpec{
				Files:  []scenario.File{{Path: "/work/a", Data: "hello"}},
				Routes: []scenario.Route{{Host: "x.example", Path: "/", Body: "body"}},
				Clock:  tc.clock,
			}
			g := must.Grant(tc.spec)
			kinds := func(f core.Factory) ([]core.Kind, core.Usage) {
				sb, err := f(g, refworld.New(ws))
				if err != nil {
					t.Fatal(err)
				}
				var out []core.Kind
				for _, op := range tc.ops {
					out = append(out, sb.Run(op).Kind)
				}
				return out, sb.Usage()
			}
			for _, f := range []core.Factory{core.ReferenceFactory, faithful.factory()} {
				got, u := kinds(f)
				if diff := cmp.Diff(tc.ref, got); diff != "" {
					t.Fatalf("reference kinds mismatch (-want +got):\n%s", diff)
				}
				if u.Output != tc.refOutput {
					t.Errorf("reference usage output %d, want %d", u.Output, tc.refOutput)
				}
			}
			if got, _ := kinds(mustFactory(t, tc.mutant)); !slices.Equal(got, tc.got) {
				t.Errorf("mutant %s: kinds %v, want %v", tc.mutant, got, tc.got)
			}
		})
	}
}

// TestInternalMaskGaps: the two address mutants misjudge exactly the
// addresses their defect names, and no other, on a sweep of every IPv4 /16
// (its first and last addresses, bare, mapped and NAT64) and every IPv6
// first 16 bits (with low, high and mixed tails).
func TestInternalMaskGaps(t *testing.T) {
	strs, v6 := &sandbox{d: internalStringPrefixes}, &sandbox{d: v6RangeMasks}
	nat64 := netip.MustParseAddr("64:ff9b::")
	for a := 0; a < 256; a++ {
		for b := 0; b < 256; b++ {
			for _, tail := range [][2]byte{{0, 0}, {0, 1}, {255, 254}, {255, 255}} {
				v4 := netip.AddrFrom4([4]byte{byte(a), byte(b), tail[0], tail[1]})
				n := nat64.As16()
				copy(n[12:], []byte{byte(a), byte(b), tail[0], tail[1]})
				gap := (a == 172 && 17 <= b && b <= 31) || (a == 100 && 65 <= b && b <= 127) || (a == 198 && b == 19)
				for _, x := range []netip.Addr{v4, netip.AddrFrom16(v4.As16()), netip.AddrFrom16(n)} {
					if got := strs.internal(x); got != (spec.IsInternal(x) && !gap) {
						t.Fatalf("internal-string-prefixes: internal(%v) = %v; IsInternal %v, in the gap %v", x, got, spec.IsInternal(x), gap)
					}
					if got := v6.internal(x); got != spec.IsInternal(x) {
						t.Fatalf("v6-range-masks: internal(%v) = %v, IsInternal %v", x, got, spec.IsInternal(x))
					}
				}
			}
		}
	}
	for hi := 0; hi < 1<<16; hi++ {
		for _, tail := range []byte{0x00, 0xff, 0x5a} {
			var b [16]byte
			b[0], b[1] = byte(hi>>8), byte(hi)
			for i := 2; i < 16; i++ {
				b[i] = tail
			}
			b[15] |= 1 // not the subnet-router anycast, ::, or the like
			x := netip.AddrFrom16(b)
			gap := hi>>8 == 0xfc || (hi&0xffc0 == 0xfe80 && hi != 0xfe80)
			if got := v6.internal(x); got != (spec.IsInternal(x) && !gap) {
				t.Fatalf("v6-range-masks: internal(%v) = %v; IsInternal %v, in the gap %v", x, got, spec.IsInternal(x), gap)
			}
			if got := strs.internal(x); got != spec.IsInternal(x) {
				t.Fatalf("internal-string-prefixes: internal(%v) = %v, IsInternal %v", x, got, spec.IsInternal(x))
			}
		}
	}
	for _, s := range []string{"::", "::1", "fe80::%eth0", "ff02::1", "2001::1", "::2", "2002:a00::", "64:ff9b:1::1"} {
		x := netip.MustParseAddr(s)
		if strs.internal(x) != spec.IsInternal(x) || v6.internal(x) != spec.IsInternal(x) {
			t.Errorf("%s judged otherwise than the reference", s)
		}
	}
	if !strs.internal(netip.Addr{}) || !v6.internal(netip.Addr{}) {
		t.Error("the zero Addr is not internal")
	}
}

// TestEmbeddingGaps: the four embedding-form mutants misjudge exactly the
// addresses their defect names, on a sweep of the 64 high bits around
// each embedding prefix of SPEC §6 (one /48 of 64:ff9b::/32 in 257, from
// the first to the last; the local-use 64:ff9b:1::/48; the one before the
// last; the addresses around the /96) with internal and public IPv4 tails:
// nat64-prefix-32 judges 64:ff9b::/32 by its last 32 bits, no-6to4-unmap
// judges 2002::/16 as itself (public), no-compatible-unmap judges ::/96
// but :: and ::1 as itself (public), nat64-local-use-public judges
// 64:ff9b:1::/48 as itself (public).
func TestEmbeddingGaps(t *testing.T) {
	nat, six, compat := &sandbox{d: nat64Prefix32}, &sandbox{d: noSixToFourUnmap}, &sandbox{d: noCompatibleUnmap}
	local := &sandbox{d: nat64LocalUsePublic}
	tails := [][4]byte{{0, 0, 0, 0}, {127, 0, 0, 1}, {10, 1, 2, 3}, {203, 0, 113, 1}, {255, 255, 255, 255}}
	var addrs []netip.Addr
	his := []int{1, 0xfffe} // the local-use /48, and the one before the last, which the step passes over
	for hi := 0; hi < 1<<16; hi += 0x101 {
		his = append(his, hi)
	}
	for _, hi := range his {
		for _, g := range [][2]uint16{{0x64, 0xff9b}, {0x64, 0xff9a}, {0x2002, uint16(hi)}, {0x2001, 0}, {0x2003, 0}, {0, 0}} {
			for _, mid := range []uint16{0, 1, uint16(hi)} {
				for _, tail := range tails {
					b := [16]byte{byte(g[0] >> 8), byte(g[0]), byte(g[1] >> 8), byte(g[1]), byte(hi >> 8), byte(hi), 10: byte(mid >> 8), 11: byte(mid)}
					copy(b[12:], tail[:])
					addrs = append(addrs, netip.AddrFrom16(b))
				}
			}
		}
	}
	// The prefixes as SPEC §6 writes them, not the mutants' own: a mutant
	// whose prefix is wrong must fail here.
	wkp32, sixToFour := netip.MustParsePrefix("64:ff9b::/32"), netip.MustParsePrefix("2002::/16")
	compat96, local48 := netip.MustParsePrefix("::/96"), netip.MustParsePrefix("64:ff9b:1::/48")
	for _, x := range addrs {
		want := spec.IsInternal(x)
		if wkp32.Contains(x) {
			b := x.As16()
			want = spec.IsInternal(netip.AddrFrom4([4]byte(b[12:16])))
		}
		if got := nat.internal(x); got != want {
			t.Fatalf("nat64-prefix-32: internal(%v) = %v, want %v (IsInternal %v)", x, got, want, spec.IsInternal(x))
		}
		want = spec.IsInternal(x) && !sixToFour.Contains(x)
		if got := six.internal(x); got != want {
			t.Fatalf("no-6to4-unmap: internal(%v) = %v, want %v (IsInternal %v)", x, got, want, spec.IsInternal(x))
		}
		want = spec.IsInternal(x) && (!compat96.Contains(x) || x == netip.IPv6Unspecified() || x == netip.IPv6Loopback())
		if got := compat.internal(x); got != want {
			t.Fatalf("no-compatible-unmap: internal(%v) = %v, want %v (IsInternal %v)", x, got, want, spec.IsInternal(x))
		}
		want = spec.IsInternal(x) && !local48.Contains(x)
		if got := local.internal(x); got != want {
			t.Fatalf("nat64-local-use-public: internal(%v) = %v, want %v (IsInternal %v)", x, got, want, spec.IsInternal(x))
		}
	}
	// Each differs from the reference somewhere in the sweep.
	for _, m := range []*sandbox{nat, six, compat, local} {
		if !slices.ContainsFunc(addrs, func(x netip.Addr) bool { return m.internal(x) != spec.IsInternal(x) }) {
			t.Errorf("defect %d judges every swept address as the reference does", m.d)
		}
	}
}

// TestRootsResolvedAtStart: roots-resolved-at-start resolves its roots
// while it is built and holds resolved paths to those answers: under a
// root that is a link, or lies under one, it reads and writes what the
// reference denies; in a world whose links are below the roots it agrees
// with the reference op for op.
func TestRootsResolvedAtStart(t *testing.T) {
	read := func(p string) core.Op { return core.Op{Kind: core.OpRead, Args: []string{p}} }
	write := func(p string) core.Op { return core.Op{Kind: core.OpWrite, Args: []string{p, "x"}} }
	g := core.GrantSpec{FSRead: []string{"/srv/app/"}, FSWrite: []string{"/srv/app/"}, Budgets: roomy}
	ops := []core.Op{read("/srv/app/a"), write("/srv/app/b"), read("/srv/app/ln"), read("/etc/passwd")}
	files := []scenario.File{{Path: "/mnt/real/srv/app/a", Data: "real"}, {Path: "/mnt/up/srv/app/a", Data: "up"},
		{Path: "/srv/app/a", Data: "shadowed"}, {Path: "/etc/passwd", Data: "root"}}
	denied := []core.Kind{core.FSReadDenied, core.FSWriteDenied, core.FSReadDenied, core.FSReadDenied}
	for _, tc := range []struct {
		what     string
		links    []scenario.Link
		ref, got []core.Kind
	}{
		{"the root a link", []scenario.Link{{Path: "/srv/app", Target: "/mnt/real/srv/app"}},
			denied, []core.Kind{core.OK, core.OK, core.NotFound, core.FSReadDenied}},
		{"the root's parent a link", []scenario.Link{{Path: "/srv", Target: "/mnt/up/srv"}},
			denied, []core.Kind{core.OK, core.OK, core.NotFound, core.FSReadDenied}},
		{"a link below the root", []scenario.Link{{Path: "/srv/app/ln", Target: "/etc/passwd"}},
			[]core.Kind{core.OK, core.OK, core.FSReadDenied, core.FSReadDenied},
			[]core.Kind{core.OK, core.OK, core.FSReadDenied, core.FSReadDenied}},
	} {
		ws := scenario.WorldSpec{Files: files, Links: tc.links}
		kinds := func(f core.Factory) []core.Kind {
			sb, err := f(must.Grant(g), refworld.New(ws))
			if err != nil {
				t.Fatal(err)
			}
			var out []core.Kind
			for _, op := range ops {
				out = append(out, sb.Run(op).Kind)
			}
			return out
		}
		if got := kinds(core.ReferenceFactory); !slices.Equal(got, tc.ref) {
			t.Errorf("%s: reference kinds %v, want %v", tc.what, got, tc.ref)
		}
		if got := kinds(mustFactory(t, "roots-resolved-at-start")); !slices.Equal(got, tc.got) {
			t.Errorf("%s: mutant kinds %v, want %v", tc.what, got, tc.got)
		}
	}
	// The roots are resolved while the mutant is built, before any op.
	if _, w := build(t, "roots-resolved-at-start", g, scenario.WorldSpec{Links: []scenario.Link{{Path: "/srv", Target: "/mnt/up/srv"}}}); w.JournalLen() != 2 {
		t.Errorf("journal after the build holds %d entries, want 2 (a realpath per root)", w.JournalLen())
	}
}

// TestRootItselfDeniedOnlyTheRoot: root-itself-denied's allow-list differs
// from SPEC §4's only for a path whose Clean is a root written with a
// trailing slash ("/" excepted).
func TestRootItselfDeniedOnlyTheRoot(t *testing.T) {
	s := &sandbox{d: rootItselfDenied}
	paths := []string{"/work", "/work/", "/work/.", "//work", "/work/a", "/work/a/", "/workshop", "/", "//", "/.", "",
		"work", "/work/out", "/work/out/", "/work/out/x", "/etc/passwd", "/work2"}
	rootSets := [][]string{{"/work/"}, {"/work"}, {"/"}, {"/work//"}, {"/work/./"}, {"/work/out/"}, {"/work", "/work/out/"},
		{"/work/", "/work/out"}, {"/", "/work/"}}
	for _, roots := range rootSets {
		for _, p := range paths {
			want := spec.UnderAllowlist(p, roots)
			c := spec.Canonical(p)
			if c != "/" && slices.ContainsFunc(roots, func(r string) bool {
				return strings.HasSuffix(r, "/") && spec.Canonical(r) == c && !spec.UnderAllowlist(p, slices.DeleteFunc(slices.Clone(roots), func(x string) bool { return x == r }))
			}) {
				want = false
			}
			if got := s.under(p, roots); got != want {
				t.Errorf("under(%q, %q) = %v, want %v", p, roots, got, want)
			}
		}
	}
}

// TestWallBeforeOpsOnlyThePair: past max_ops alone or max_wall alone,
// wall-before-ops gives the reference's results and usage (it reads the
// clock once more, on the op that halts max_ops, which nothing before the
// halt can see); only an op past both budgets tells them apart.
func TestWallBeforeOpsOnlyThePair(t *testing.T) {
	type step struct {
		Result core.Result
		Usage  core.Usage
	}
	steps := func(f core.Factory, b core.Budgets) []step {
		sb, err := f(must.Grant(core.GrantSpec{Budgets: b}), refworld.New(scenario.WorldSpec{Clock: scenario.TickClock{Start: 3, Step: 2}}))
		if err != nil {
			t.Fatal(err)
		}
		var out []step
		for range 4 {
			out = append(out, step{sb.Run(core.Op{Kind: "exec"}), sb.Usage()})
		}
		return out
	}
	m := mustFactory(t, "wall-before-ops")
	for _, b := range []core.Budgets{{MaxOps: 0, MaxWall: 9}, {MaxOps: 2, MaxWall: 9}, {MaxOps: 9, MaxWall: 0}, {MaxOps: 9, MaxWall: 3}, {MaxOps: 2, MaxWall: 6}} {
		if diff := cmp.Diff(steps(core.ReferenceFactory, b), steps(m, b)); diff != "" {
			t.Errorf("budgets %+v: wall-before-ops differs from the reference (-ref +mutant):\n%s", b, diff)
		}
	}
	for _, b := range []core.Budgets{{MaxOps: 0, MaxWall: 0}, {MaxOps: 2, MaxWall: 5}} {
		if slices.Equal(steps(core.ReferenceFactory, b), steps(m, b)) {
			t.Errorf("budgets %+v: wall-before-ops behaves as the reference past both budgets", b)
		}
	}
}

// TestDotlessNamesTrusted: dotless-names-trusted fetches a granted name of
// one label whose DNS line answers a private address, where the reference
// refuses it; a dotted name, localhost and address literals without a dot
// are refused by both.
func TestDotlessNamesTrusted(t *testing.T) {
	m, ok := Lookup("dotless-names-trusted")
	if !ok {
		t.Fatal("no dotless-names-trusted")
	}
	for _, tc := range []struct {
		host    string
		trusted bool
	}{{"intranet", true}, {"db", true}, {"intranet.", false}, {"db.internal", false}, {"localhost", false}, {"LocalHost", false}, {"2130706433", false}, {"::1", false}, {"0x7f000001", false}} {
		src := "grant net " + tc.host + "\nroute " + tc.host + " / LEAK\n"
		if _, literal := spec.ParseIPLiteral(spec.NormalizeHost(tc.host)); !literal {
			src += "dns " + tc.host + " 10.0.0.5\n"
		}
		sc, err := scenario.Parse("dotless.sbx", []byte(src+"\nnet_fetch "+tc.host+" /\n"))
		if err != nil {
			t.Fatal(err)
		}
		g, err := core.NewGrant(sc.Grant)
		if err != nil {
			t.Fatal(err)
		}
		ws, ops := sc.World, []core.Op{sc.Steps[0].Op}
		want, got := run(t, core.ReferenceFactory, g, ws, ops), run(t, m.Factory, g, ws, ops)
		if differs := !slices.Equal(got, want); differs != tc.trusted {
			t.Errorf("%s: the mutant differs from the reference %v, want %v:\nreference %q\nmutant    %q", tc.host, differs, tc.trusted, want, got)
		}
	}
}

// TestSpellingGaps: each spelling mutant lets through exactly the paths
// whose spelling its check misreads, reaching them as written, and judges
// every other path as the reference does.
func TestSpellingGaps(t *testing.T) {
	long := "/work/" + strings.Repeat("a", beltBuf) + "/../secret"
	short := "/work/" + strings.Repeat("a", beltBuf-20) + "/../secret"
	for name, escapes := range map[string][]string{
		"win-trim-check":       {"/work./secret", "/work /secret", "/work.. /x"},
		"query-stripped-check": {"/work?/secret", "/work#/secret", "/work?x=/y"},
		"first-line-check":     {"/work\n/etc/passwd"},
		"truncated-belt":       {long},
	} {
		// Held: outside the root and refused alike, or inside it (a name
		// that ends in a dot, a line break) and read alike.
		held := []string{"/work/secret", "/etc/passwd", "/workshop/x", "/work/../etc/passwd", short, "/work2?/x", "/etc\n/work", "/work/sub./x", "/work/x\n/etc/passwd"}
		for _, p := range append(held, escapes...) {
			spec := core.GrantSpec{FSRead: []string{"/work"}, Budgets: roomy}
			sb, w := build(t, name, spec, scenario.WorldSpec{})
			refWorld := refworld.New(scenario.WorldSpec{})
			ref := core.NewReference(must.Grant(spec), refWorld)
			got, want := sb.Run(core.Op{Kind: core.OpRead, Args: []string{p}}), ref.Run(core.Op{Kind: core.OpRead, Args: []string{p}})
			read := func(e refworld.Entry) bool { return e.Call == refworld.CallRead && e.Name == path.Clean(p) }
			if slices.Contains(escapes, p) {
				// The gap: refused by the reference, read as written here.
				if want.Kind == core.OK || slices.ContainsFunc(refWorld.Journal(), read) || !slices.ContainsFunc(w.Journal(), read) {
					t.Errorf("%s: %q gives %v (journal %v), the reference %v: want a read of it", name, p, got.Kind, w.Journal(), want.Kind)
				}
			} else if got != want {
				t.Errorf("%s: %q gives %+v, the reference %+v", name, p, got, want)
			}
		}
	}
}

// TestEgressShapeGaps shows the four egress-shape mutants in Go: each
// departs from the reference on its own shape of address or host, and
// judges every other one as the reference does.
func TestEgressShapeGaps(t *testing.T) {
	teredo, zoned := &sandbox{d: teredoCarried}, &sandbox{d: zoneBlindsPrefixes}
	for _, c := range []struct {
		s    *sandbox
		addr string
		want bool
	}{
		{teredo, "2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, // client 192.0.2.45
		{teredo, "2001::", true},                                // client 255.255.255.255
		{teredo, "2001:1::1", false},                            // outside 2001::/32
		{teredo, "::ffff:127.0.0.1", true},
		{zoned, "64:ff9b::a00:1%eth0", false},
		{zoned, "::ffff:100.64.0.1%eth0", false},
		{zoned, "2002:7f00:1::1%eth0", false},
		{zoned, "fe80::1%eth0", true},
		{zoned, "::ffff:127.0.0.1%eth0", true},
		{zoned, "fd00::1%eth0", true},
		{zoned, "64:ff9b::a00:1", true},
		{zoned, "2606:4700::1111%eth0", false},
	} {
		a := netip.MustParseAddr(c.addr)
		if got := c.s.internal(a); got != c.want {
			t.Errorf("defect %d: internal(%v) = %v, want %v (IsInternal %v)", c.s.d, a, got, c.want, spec.IsInternal(a))
		}
	}
	for _, c := range []struct {
		d      defect
		grant  []string
		host   string
		passes bool
	}{
		{hostPercentDecoded, []string{"api.internal"}, "api%2einternal", true},
		{hostPercentDecoded, []string{"api.internal"}, "api%zzinternal", false},
		{hostPercentDecoded, []string{"api%2einternal"}, "api%2einternal", false}, // decoded, it is another host
		{hostIDNAEncoded, []string{"xn--bcher-kva.example"}, "b\u00fccher.example", true},
		{hostIDNAEncoded, []string{"b\u00fccher.example"}, "b\u00fccher.example", false},
		{hostIDNAEncoded, []string{"api.internal"}, "api.internal", true},
	} {
		s := &sandbox{d: c.d, auth: authority{hosts: c.grant}}
		if got := s.granted(c.host); got != c.passes {
			t.Errorf("defect %d: granted(%q) under %q = %v, want %v", c.d, c.host, c.grant, got, c.passes)
		}
	}
}

// TestOpShapeGaps shows the tool-name, kind and UTF-8 mutants in Go: each
// departs from the reference on its own spelling of a tool name, a kind or
// an argument, and answers every other op as the reference does.
func TestOpShapeGaps(t *testing.T) {
	spec := core.GrantSpec{FSRead: []string{"/work/"}, Tools: []string{"echo", "summarize", "search"}, Budgets: roomy}
	ws := scenario.WorldSpec{Files: []scenario.File{{Path: "/work/data.txt", Data: "hello"}}}
	tool := func(name string) core.Op { return core.Op{Kind: core.OpTool, Args: []string{name, "hi"}} }
	read := func(kind, p string) core.Op { return core.Op{Kind: kind, Args: []string{p}} }
	// Every op each mutant is shown: the reference refuses each but the
	// exact names and the well-formed read.
	ops := []core.Op{
		tool("echo"), tool("summ"), tool("s"), tool("ech"), tool("functions.echo"), tool("default_api:echo"),
		tool("mcp__sbx__summarize"), tool("echo.exe"), tool("echo()"), tool("echo(x)"), tool("\uff45\uff43\uff48\uff4f"),
		tool("%65cho"), tool("%zzcho"), tool("ECHO"), read("read_file", "/work/data.txt"),
		read("read_text_file", "/work/data.txt"), read("fs_read", "/work/data.txt"), read("read", "/work/data.txt"),
		read("fs_read", "/work/\xf4\x90\x80\x80"), read("fs_read", "/work/\xf7\xbf\xbf\xbf"),
		read("fs_read", "/work/\xed\xa0\x80"), read("fs_read", "/work/\xc0\xae"), read("fs_read", "/work/\xf4\x8f\xbf\xbf"),
		read("fs_read", "/work/a\xc0\x80"), read("fs_read", "/work/\xc0\x80\xc0"),
		read("exec", "a\x00"), read("exec", "\xff"), read("exec", "ok"), read("fs_read", "/work/\xff"),
	}
	// departs lists the ops (by index in ops) each mutant answers otherwise.
	for name, departs := range map[string][]int{
		"tool-unique-prefix":       {1, 3},    // summ, ech; s begins summarize and search
		"tool-namespace-stripped":  {4, 5, 6}, // functions.echo, default_api:echo, mcp__sbx__summarize
		"tool-call-syntax":         {8, 9},    // echo(), echo(x)
		"tool-width-folded":        {10},      // ｅｃｈｏ
		"tool-percent-decoded":     {11},      // %65cho
		"kind-aliases":             {14, 15},  // read_file, read_text_file
		"utf8-above-max":           {18, 19},  // U+110000, U+1FFFFF
		"modified-utf8":            {23},      // C0 80; a lone C0 after it is invalid all the same
		"malformed-before-unknown": {25, 26},  // exec with a NUL, with invalid UTF-8
	} {
		for i, op := range ops {
			sb, _ := build(t, name, spec, ws)
			ref, err := core.ReferenceFactory(must.Grant(spec), refworld.New(ws))
			if err != nil {
				t.Fatal(err)
			}
			got, want := sb.Run(op), ref.Run(op)
			if d := slices.Contains(departs, i); d != (got != want) {
				t.Errorf("%s: %s %q gives %+v, the reference %+v: want departing %v", name, op.Kind, op.Args, got, want, d)
			}
		}
	}
}
