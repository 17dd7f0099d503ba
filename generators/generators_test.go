package generators

import (
	"math"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// seeded returns the i-th scenario of the test seed.
func seeded(i int) *scenario.Scenario { return Generate(NewSource(*seedFlag, uint64(i))) }

// exact compares two scenarios field by field, classes included, telling
// nil from empty: generation is deterministic down to the allocation
// shape. (cmp would call *scenario.Scenario's Equal, which ignores classes
// and nil-versus-empty; callers compare the values.)
var exact = cmp.Options{cmpopts.EquateComparable(netip.Addr{})}

// formatOp writes an op as a scenario line.
func formatOp(op core.Op) string { return judge.FormatOp(op) }

func TestEveryClassGenerated(t *testing.T) {
	var n [attack.NumClasses]int
	for i := range 2000 {
		for _, st := range seeded(i).Steps {
			n[st.Class]++
		}
	}
	if n[attack.Unlabelled] != 0 {
		t.Errorf("%d unlabelled ops", n[attack.Unlabelled])
	}
	for _, cl := range attack.All() {
		if n[cl] < 100 {
			t.Errorf("class %s: %d ops in 2000 scenarios, want at least 100", cl, n[cl])
		}
	}
	t.Logf("ops per class: %v", n)
}

func TestGrantsValidate(t *testing.T) {
	for i := range 2000 {
		sc := seeded(i)
		if _, err := judge.NewCase(sc); err != nil {
			t.Fatalf("scenario %d: %v\n%s", i, err, sc.Format())
		}
	}
}

func TestDeterministic(t *testing.T) {
	for i := range 200 {
		a, b := seeded(i), seeded(i)
		if diff := cmp.Diff(*a, *b, exact); diff != "" {
			t.Fatalf("stream %d: second draw mismatch (-first +second):\n%s", i, diff)
		}
	}
	if cmp.Equal(*seeded(0), *seeded(1), exact) {
		t.Fatal("streams 0 and 1 give the same scenario")
	}
}

func TestLengths(t *testing.T) {
	var short, usual, long int
	for i := range 2000 {
		switch n := len(seeded(i).Steps); {
		case n < 5:
			short++
		case n <= 40:
			usual++
		default:
			long++
		}
	}
	t.Logf("lengths: %d under 5, %d from 5 to 40, %d over 40", short, usual, long)
	if usual < 1400 || short == 0 || long == 0 {
		t.Errorf("want mostly 5–40 ops, some shorter, some longer")
	}
}

// TestOpLeavesScenarioAlone: Op reads the scenario and never writes it, and
// copes with a nil or empty one.
func TestOpLeavesScenarioAlone(t *testing.T) {
	for i := range 100 {
		sc, pristine := seeded(i), seeded(i)
		src := NewSource(7, uint64(i))
		for _, cl := range attack.All() {
			for range 5 {
				Op(src, cl, sc)
			}
		}
		if diff := cmp.Diff(*pristine, *sc, exact); diff != "" {
			t.Fatalf("scenario %d changed under Op (-before +after):\n%s", i, diff)
		}
	}
	src := NewSource(7, 0)
	for cl := attack.Class(0); cl <= attack.NumClasses; cl++ {
		Op(src, cl, nil)
		Op(src, cl, &scenario.Scenario{})
	}
}

// TestOpShapes asks Op for each class over many scenarios and checks that
// every op has that class's shape.
func TestOpShapes(t *testing.T) {
	for _, cl := range attack.All() {
		shape := shapes[cl]
		if shape == nil {
			continue
		}
		t.Run(cl.String(), func(t *testing.T) {
			src := NewSource(*seedFlag, 1<<32+uint64(cl))
			for i := range 300 {
				sc := seeded(i)
				for range 10 {
					op := Op(src, cl, sc)
					if why := shape(op, sc); why != "" {
						t.Fatalf("scenario %d: %s is not %s: %s\n%s", i, formatOp(op), cl, why, sc.Format())
					}
				}
			}
		})
	}
}

// shapes say, per class, why an op is not of that class's shape ("" when
// it is).
var shapes = map[attack.Class]func(core.Op, *scenario.Scenario) string{
	attack.Traversal: func(op core.Op, _ *scenario.Scenario) string {
		return unless(spec.HasTraversal(pathArg(op)), "no .. segment")
	},
	attack.PrefixSibling: func(op core.Op, sc *scenario.Scenario) string {
		return unless(isSibling(spec.Canonical(pathArg(op)), sc) && !spec.HasTraversal(pathArg(op)),
			"not a prefix sibling of any root")
	},
	attack.DotSegments: func(op core.Op, _ *scenario.Scenario) string {
		p := pathArg(op)
		dotted := strings.Contains(p, "/./") || strings.Contains(p, "//") || strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.")
		return unless(dotted && !spec.HasTraversal(p), "no . segment, doubled or trailing slash, or has ..")
	},
	attack.Encoded: func(op core.Op, _ *scenario.Scenario) string {
		p := pathArg(op)
		return unless(strings.Contains(p, "%") || !utf8.ValidString(p), "nothing encoded")
	},
	attack.Lookalike: func(op core.Op, _ *scenario.Scenario) string {
		return unless(slices.ContainsFunc(op.Args, hasNonASCII) || hasUpper(pathArg(op)), "no lookalike")
	},
	attack.OutsideAbsolute: func(op core.Op, sc *scenario.Scenario) string {
		p := pathArg(op)
		if !strings.HasPrefix(p, "/") || spec.HasTraversal(p) {
			return "not absolute, or has .."
		}
		roots := rootsFor(op, sc)
		return unless(roots == nil || slices.Contains(roots, "/") || !underAny(p, roots), "under a root")
	},
	attack.Relative: func(op core.Op, _ *scenario.Scenario) string {
		p := pathArg(op)
		return unless(!strings.HasPrefix(p, "/") && !spec.HasTraversal(p), "absolute, or has ..")
	},
	attack.ControlBytes: func(op core.Op, _ *scenario.Scenario) string {
		return unless(hasControl(op.Kind) || slices.ContainsFunc(op.Args, hasControl), "no control byte, NUL or invalid UTF-8")
	},
	attack.LongPath: func(op core.Op, _ *scenario.Scenario) string {
		return unless(slices.ContainsFunc(op.Args, func(a string) bool { return len(a) >= 200 || strings.Count(a, "/") >= 20 }),
			"nothing long or deep")
	},
	attack.UnknownHost: func(op core.Op, sc *scenario.Scenario) string {
		return unless(op.Kind == core.OpFetch && !slices.Contains(sc.Grant.NetHosts, op.Args[0]), "not a fetch of an ungranted host")
	},
	attack.HostVariant: func(op core.Op, sc *scenario.Scenario) string {
		return unless(op.Kind == core.OpFetch && isVariant(op.Args[0], sc.Grant.NetHosts, "api.internal"), "not a variant of a granted host")
	},
	attack.IPSpelling: func(op core.Op, _ *scenario.Scenario) string {
		return unless(op.Kind == core.OpFetch && (parsesAsIP(op.Args[0]) || slices.Contains(ipNearMisses, op.Args[0])),
			"not a fetch of an address literal")
	},
	attack.Metadata: func(op core.Op, _ *scenario.Scenario) string {
		return unless(op.Kind == core.OpFetch && slices.Contains(metadataHosts, op.Args[0]) || op.Args[0] == dnsMetadata,
			"not a fetch of a metadata endpoint")
	},
	attack.Rebinding: func(op core.Op, sc *scenario.Scenario) string {
		ok := op.Kind == core.OpFetch && (hasDNS(sc, op.Args[0]) || len(sc.World.DNS) == 0)
		return unless(ok, "not a fetch of a name with a DNS line")
	},
	attack.OutputFlood: func(op core.Op, _ *scenario.Scenario) string {
		return unless(op.Kind == core.OpRead || op.Kind == core.OpFetch || op.Kind == core.OpTool, "produces no output")
	},
	attack.UnknownTool: func(op core.Op, sc *scenario.Scenario) string {
		return unless(op.Kind == core.OpTool && !slices.Contains(sc.Grant.Tools, op.Args[0]), "not a call of an ungranted tool")
	},
	attack.ToolVariant: func(op core.Op, sc *scenario.Scenario) string {
		return unless(op.Kind == core.OpTool && (isVariant(op.Args[0], sc.Grant.Tools, "summarize") || isToolRespelling(op.Args[0], sc.Grant.Tools)),
			"not a variant of a granted tool")
	},
	attack.UnknownOp: func(op core.Op, _ *scenario.Scenario) string {
		_, known := spec.Arity(op.Kind)
		return unless(!known, "a known kind")
	},
	attack.MalformedOp: func(op core.Op, _ *scenario.Scenario) string {
		n, known := spec.Arity(op.Kind)
		return unless(known && !spec.WellFormed(op.Args, n), "not a known kind with bad arguments")
	},
	attack.SymlinkEscape: func(op core.Op, sc *scenario.Scenario) string {
		if (op.Kind == core.OpRead || op.Kind == core.OpWrite) && len(besideLinks(linkTable(sc), op.Args[0])) > 0 {
			return ""
		}
		return linkShape(op, sc, func(on []string, _ bool, _ int) bool { return len(on) > 0 }, "through no link, nor beside one")
	},
	attack.SymlinkParent: func(op core.Op, sc *scenario.Scenario) string {
		return linkShape(op, sc, func(_ []string, asParent bool, _ int) bool { return asParent }, "no directory component is a link")
	},
	attack.SymlinkLoop: func(op core.Op, sc *scenario.Scenario) string {
		return linkShape(op, sc, func(on []string, _ bool, hops int) bool { return len(on) > 0 && hops >= spec.MaxLinks-1 },
			"through no link, or resolves in fewer than 39 hops")
	},
}

// linkShape says why op is not a read or write whose path, cleaned
// (backslashes read as slashes), names a world link as ok wants: given the
// links it names, whether one is a directory component, and the hops its
// resolution takes. In a world without links, any read or write will do.
func linkShape(op core.Op, sc *scenario.Scenario, ok func(on []string, asParent bool, hops int) bool, why string) string {
	if op.Kind != core.OpRead && op.Kind != core.OpWrite {
		return "not an fs op"
	}
	if len(sc.World.Links) == 0 {
		return ""
	}
	links := linkTable(sc)
	p := untrimmed(op.Args[0])
	on, asParent := linksOn(links, p)
	_, n := hops(links, "/"+strings.ReplaceAll(p, `\`, "/"))
	return unless(ok(on, asParent, n), why)
}

// untrimmed is p without a tail of trimmedTails: the path a sandbox that
// trims paths opens, which the tail's op asks it through a link.
func untrimmed(p string) string {
	for _, t := range trimmedTails {
		if q, ok := strings.CutSuffix(p, t); ok {
			return q
		}
	}
	return p
}

func unless(ok bool, why string) string {
	if ok {
		return ""
	}
	return why
}

// pathArg is the argument a path class aims: the path of a read or write,
// the URL path of a fetch, the input of a tool.
func pathArg(op core.Op) string {
	switch {
	case len(op.Args) == 0:
		return ""
	case op.Kind == core.OpRead || op.Kind == core.OpWrite:
		return op.Args[0]
	}
	return op.Args[len(op.Args)-1]
}

// rootsFor returns the roots that judge op's path, or nil when op is no fs
// op.
func rootsFor(op core.Op, sc *scenario.Scenario) []string {
	switch op.Kind {
	case core.OpRead:
		return append([]string{}, sc.Grant.FSRead...)
	case core.OpWrite:
		return append([]string{}, sc.Grant.FSWrite...)
	}
	return nil
}

// isSibling reports whether c extends a root's base (or is a strict prefix
// of it) without a path boundary.
func isSibling(c string, sc *scenario.Scenario) bool {
	bases := []string{"/work", "/work/out"}
	for _, r := range slices.Concat(sc.Grant.FSRead, sc.Grant.FSWrite) {
		if b := rootBase(r); b != "" {
			bases = append(bases, b)
		}
	}
	for _, b := range bases {
		if len(c) > len(b) && strings.HasPrefix(c, b) && c[len(b)] != '/' || len(c) < len(b) && strings.HasPrefix(b, c) {
			return true
		}
	}
	return false
}

// isVariant reports whether v is not itself granted but contains a granted
// name (or dflt when none is), ASCII case and a trailing dot aside.
func isVariant(v string, granted []string, dflt string) bool {
	if slices.Contains(granted, v) {
		return false
	}
	if len(granted) == 0 {
		granted = []string{dflt}
	}
	lv := strings.ToLower(strings.ReplaceAll(v, "\u200b", ""))
	for _, g := range granted {
		if strings.Contains(lv, strings.ToLower(strings.TrimSuffix(g, "."))) || v == homoglyph(g) || v == percentOne(g) || v == unicodeForm(g) || v == dotAsDash(g) {
			return true
		}
	}
	return false
}

// isToolRespelling reports whether v is not itself granted but a granted
// tool name's fullwidth form or a strict prefix of one.
func isToolRespelling(v string, granted []string) bool {
	if len(granted) == 0 {
		granted = []string{"summarize"}
	}
	return !slices.Contains(granted, v) && slices.ContainsFunc(granted, func(g string) bool {
		return v == fullwidth(g) || v != "" && len(v) < len(g) && strings.HasPrefix(g, v)
	})
}

func parsesAsIP(h string) bool {
	n := spec.NormalizeHost(h)
	_, v4 := spec.ParseInetAton(n)
	_, v6 := spec.ParseIPv6Literal(n)
	return v4 || v6
}

func hasNonASCII(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0
}

func hasUpper(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' }) >= 0
}

func hasControl(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}

// TestBenignIsLegal runs scenarios on the reference with budgets nothing
// reaches: benign ops are allowed or not_found, refused only when the grant
// gives nothing of their kind (or, for fetches, no host that resolves
// public).
func TestBenignIsLegal(t *testing.T) {
	for i := range 500 {
		sc := seeded(i)
		sc.Grant.Budgets = core.Budgets{MaxOps: math.MaxInt64, MaxWall: math.MaxInt64, MaxOutputBytes: math.MaxInt64}
		// A tick past 2^63−1 is past even a max_wall of MaxInt64 (SPEC §7),
		// so the clock stops where it starts: then nothing reaches the wall.
		sc.World.Clock.Step = 0
		sb := core.NewReference(must.Grant(sc.Grant), refworld.New(sc.World))
		for j, st := range sc.Steps {
			r := sb.Run(st.Op)
			if st.Class != attack.Benign || r.Kind == core.OK || r.Kind == core.NotFound {
				continue
			}
			if !emptyGrantFor(r.Kind, sc) {
				t.Fatalf("scenario %d op %d: benign %s got %s\n%s", i, j+1, formatOp(st.Op), r.Kind, sc.Format())
			}
		}
	}
}

func emptyGrantFor(k core.Kind, sc *scenario.Scenario) bool {
	g := &sc.Grant
	switch k {
	case core.FSReadDenied:
		return len(g.FSRead) == 0 || linkedAway(g.FSRead, sc)
	case core.FSWriteDenied:
		return len(g.FSWrite) == 0 || linkedAway(g.FSWrite, sc)
	case core.EgressInternal:
		_, ok := safeHost(NewSource(0, 0), sc)
		return !ok
	}
	return false
}

// linkedAway reports whether some of roots is a link, or lies under one,
// that leads out of every root: SPEC §13 denies everything below it, so a
// benign op naming it is denied in a grant that is not empty.
func linkedAway(roots []string, sc *scenario.Scenario) bool {
	links := linkTable(sc)
	for _, r := range roots {
		b := rootBase(r)
		if dst, _ := hops(links, b); dst != b && !underAny(dst, roots) {
			return true
		}
	}
	return false
}

// TestOpFloodExhausts: an op-flood run that starts near max_ops runs past it.
func TestOpFloodExhausts(t *testing.T) {
	runs, exhausted := 0, 0
	for i := range 3000 {
		sc := seeded(i)
		for j := 0; j < len(sc.Steps); j++ {
			if sc.ClassAt(j) != attack.OpFlood || j > 0 && sc.ClassAt(j-1) == attack.OpFlood {
				continue
			}
			left := sc.Grant.MaxOps - int64(j)
			if left < 0 || left >= 150 || len(sc.Steps) >= maxOps {
				continue
			}
			runs++
			k := j
			for k < len(sc.Steps) && sc.ClassAt(k) == attack.OpFlood {
				k++
			}
			if int64(k) > sc.Grant.MaxOps {
				exhausted++
			}
		}
	}
	if runs == 0 || exhausted != runs {
		t.Fatalf("%d of %d op-flood runs near max_ops ran past it", exhausted, runs)
	}
	t.Logf("%d op-flood runs started near max_ops, all ran past it", runs)
}

func TestSameName(t *testing.T) {
	names := []string{"api.internal", "API.Internal", "api.internal.", "api.internal..", "apI.internaL.", "api-internal",
		"api.interna", "\u212aelvin.example", "kelvin.example", "a@b", "A`B", "@", "`", "[", "{", "", "."}
	for _, a := range names {
		for _, b := range names {
			if got, want := sameName(a, b), spec.NormalizeHost(a) == spec.NormalizeHost(b); got != want {
				t.Errorf("sameName(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
}

// TestBudgetClassesBite: the budget classes do what they are for, on the
// reference: op-flood ops trip max_ops, wall-jump ops max_wall, output-flood
// ops max_output_bytes, budget-boundary ops each of them; and usage lands
// exactly on each cap (an op allowed with the counter equal to the budget).
func TestBudgetClassesBite(t *testing.T) {
	var tripped [attack.NumClasses][core.NumKinds]int
	var landed [3]int         // ops, wall, output
	var landedBoundary [3]int // the same, by budget-boundary ops
	for i := range 2000 {
		sc := seeded(i)
		sb := core.NewReference(must.Grant(sc.Grant), refworld.New(sc.World))
		var was [3]bool
		for _, st := range sc.Steps {
			r := sb.Run(st.Op)
			if r.Hard {
				tripped[st.Class][r.Kind]++
				break
			}
			u, b := sb.Usage(), sc.Grant.Budgets
			for k, on := range [3]bool{u.Ops == b.MaxOps, u.Wall == b.MaxWall && b.MaxWall > 0, u.Output == b.MaxOutputBytes && b.MaxOutputBytes > 0} {
				if on && !was[k] {
					landed[k]++
					if st.Class == attack.BudgetBoundary {
						landedBoundary[k]++
					}
				}
				was[k] = on
			}
		}
	}
	for _, want := range []struct {
		cl   attack.Class
		kind core.Kind
	}{
		{attack.OpFlood, core.MaxOps}, {attack.WallJump, core.MaxWall}, {attack.OutputFlood, core.MaxOutputBytes},
		{attack.BudgetBoundary, core.MaxOps}, {attack.BudgetBoundary, core.MaxWall}, {attack.BudgetBoundary, core.MaxOutputBytes},
	} {
		if n := tripped[want.cl][want.kind]; n < 10 {
			t.Errorf("%s ops tripped %s %d times in 2000 scenarios, want at least 10", want.cl, want.kind, n)
		}
	}
	for k, what := range []string{"max_ops", "max_wall", "max_output_bytes"} {
		if landed[k] < 20 || landedBoundary[k] == 0 {
			t.Errorf("usage landed exactly on %s %d times (%d by budget-boundary ops), want at least 20 (and some)", what, landed[k], landedBoundary[k])
		}
	}
	t.Logf("first hard results (max_ops, max_wall, max_output_bytes) by op-flood %v, wall-jump %v, output-flood %v, budget-boundary %v",
		tripped[attack.OpFlood][core.MaxOps:], tripped[attack.WallJump][core.MaxOps:],
		tripped[attack.OutputFlood][core.MaxOps:], tripped[attack.BudgetBoundary][core.MaxOps:])
	t.Logf("exact landings on (max_ops, max_wall, max_output_bytes): %v, by budget-boundary ops %v", landed, landedBoundary)
}

// TestGenerateAtMost: scenarios of at most n ops, whose budget edges still
// land within them. Cutting Generate's ops to eight instead leaves many
// edges past the end: over these 2000 seeds usage then lands on max_ops
// after 133 ops, against 329 here; the test wants 200.
func TestGenerateAtMost(t *testing.T) {
	const n = 8
	var landed [3]int // max_ops, max_wall, max_output_bytes
	for i := range 2000 {
		sc := GenerateAtMost(NewSource(uint64(i), 0), n)
		if len(sc.Steps) > n || slices.ContainsFunc(sc.Steps, func(st scenario.Step) bool { return st.Class == attack.Unlabelled }) {
			t.Fatalf("seed %d: %d ops, want at most %d ops and a class each", i, len(sc.Steps), n)
		}
		sb := core.NewReference(must.Grant(sc.Grant), refworld.New(sc.World))
		b := sc.Grant.Budgets
		for _, st := range sc.Steps {
			if sb.Run(st.Op).Hard {
				break
			}
			u := sb.Usage()
			for k, on := range [3]bool{u.Ops == b.MaxOps, u.Wall == b.MaxWall && b.MaxWall > 0, u.Output == b.MaxOutputBytes && b.MaxOutputBytes > 0} {
				if on {
					landed[k]++
				}
			}
		}
	}
	t.Logf("ops that left usage exactly on (max_ops, max_wall, max_output_bytes): %v", landed)
	for k, what := range []string{"max_ops", "max_wall", "max_output_bytes"} {
		if want := [3]int{200, 20, 20}[k]; landed[k] < want {
			t.Errorf("usage landed exactly on %s after %d ops in 2000 scenarios of at most %d ops, want at least %d", what, landed[k], n, want)
		}
	}
	if got := len(GenerateAtMost(NewSource(1, 0), 0).Steps); got > 1 {
		t.Errorf("GenerateAtMost(…, 0) gave %d ops, want at most 1", got)
	}
}

// TestMultiFill: for every size its callers ask for, multiFill is that
// many bytes of valid UTF-8 with a multi-byte rune in it, so that a meter
// counting runes would undercharge it.
func TestMultiFill(t *testing.T) {
	for n := minMulti; n <= maxMulti; n++ {
		s := multiFill(n)
		if len(s) != n || !utf8.ValidString(s) || utf8.RuneCountInString(s) == n {
			t.Fatalf("multiFill(%d) = %q: %d bytes, valid %v, %d runes; want %d bytes of valid UTF-8 with a multi-byte rune",
				n, s, len(s), utf8.ValidString(s), utf8.RuneCountInString(s), n)
		}
	}
}

// TestDrawsGuardExemptions: over 3000 seeded scenarios, a fetch of a
// granted name of one label that resolves to a private address (a guard
// that lets such names through as services of its own reaches the
// inside), and a fetch of a granted host whose redirect's Location is
// protocol-relative (a guard that parses a Location with no base misses
// "//host"), are each drawn.
func TestDrawsGuardExemptions(t *testing.T) {
	const n, want = 3000, 20
	service, relative := 0, 0
	for i := range n {
		sc := seeded(i)
		redirects := map[string]bool{}
		for _, r := range sc.World.Routes {
			if r.Redirect && strings.HasPrefix(r.Body, "//") {
				redirects[r.Host+" "+r.Path] = true
			}
		}
		internalName := map[string]bool{}
		for _, d := range sc.World.DNS {
			if !strings.Contains(d.Host, ".") && slices.ContainsFunc(d.Addrs, spec.IsInternal) {
				internalName[d.Host] = true
			}
		}
		fetchedService, fetchedRelative := false, false
		for _, st := range sc.Steps {
			if st.Op.Kind != core.OpFetch || len(st.Op.Args) != 2 || !slices.Contains(sc.Grant.NetHosts, st.Op.Args[0]) {
				continue
			}
			fetchedService = fetchedService || internalName[st.Op.Args[0]]
			fetchedRelative = fetchedRelative || redirects[st.Op.Args[0]+" "+st.Op.Args[1]]
		}
		if fetchedService {
			service++
		}
		if fetchedRelative {
			relative++
		}
	}
	t.Logf("of %d: a granted one-label name resolving inside fetched in %d, a protocol-relative redirect followed in %d", n, service, relative)
	if service < want || relative < want {
		t.Errorf("a granted one-label name resolving inside fetched in %d, a protocol-relative redirect fetched in %d of %d seeded scenarios, want at least %d each", service, relative, n, want)
	}
}
