package generators

import (
	"github.com/sbxfuzz/sbxfuzz/scenario"

	"github.com/sbxfuzz/sbxfuzz/attack"
)

// maxOps bounds the ops of one scenario, op-flood runs included.
const maxOps = 600

// skipOneIn makes one op slot in skipOneIn empty. Under rapid the skip draw
// shrinks to 0, which empties the slot: shrinking deletes ops one by one
// without shifting the draws of the others.
const skipOneIn = 64

// Generate draws one scenario from src: a budget profile and a length; a
// grant and a world shaped to make violations observable; then ops, each of
// a class drawn by classWeights (more often the profile's theme class), some
// classes emitting runs. Tight profiles halt early, so ops of every class
// keep coming after a hard halt; one boundary edge sets max_output_bytes
// after the ops are drawn, to the output total the reference reaches after
// one of them, so usage lands on it exactly. The same draws give the same
// scenario; Generate is safe for concurrent use with distinct Sources.
//
// The scenario is a *scenario.Scenario with every op's class set, the
// SPEC §10 comment-free form: its grant always passes core.NewGrant, and it
// shares no mutable memory with other generated scenarios or with this
// package's tables. (Its lists are carved from arrays that other
// scenarios' lists are carved from too, but never overlap them and have
// no spare capacity, so appending to one copies it; strings may share
// immutable bytes.)
func Generate(src Source) *scenario.Scenario { return generate(src, maxOps) }

// GenerateAtMost is Generate for scenarios of at most n ops (n at least 1,
// at most Generate's own bound): the plan is drawn as Generate draws it,
// then its length is cut to n before the grant, the world, the budgets and
// the ops are drawn, so that budget edges land within the ops the scenario
// keeps. (Cutting Generate's ops afterwards would leave a max_ops edge, or
// an output budget the reference reaches at the tenth op, past the end.)
// The fuzz targets use it to keep each exec small.
func GenerateAtMost(src Source, n int) *scenario.Scenario {
	return generate(src, min(max(n, 1), maxOps))
}

func generate(src Source, limit int) *scenario.Scenario {
	d := newDraw(src)
	sc := d.generate(new(scenario.Scenario), limit)
	d.release()
	return sc
}

// generate draws into sc, which must be zero, the scenario generate
// describes, from d's Source.
func (d *draw) generate(sc *scenario.Scenario, limit int) *scenario.Scenario {
	src := d.src
	p := drawPlan(d)
	p.limit, p.n = limit, min(p.n, limit)
	sc.Grant, sc.World = drawGrantWorld(d, p)
	d.facts.reset(sc, &d.record)
	sc.Steps = d.steps.open(min(p.stepsHint(), limit))
	g, grouped := src.(Grouper)
	for i := 0; i < p.n && len(sc.Steps) < limit; i++ {
		if !grouped {
			step(d, sc, p)
			continue
		}
		n0, p := len(sc.Steps), p // a copy for the closure, so that only this path moves p to the heap
		g.Group(func() {
			sc.Steps = sc.Steps[:n0] // a retried group starts over
			step(d, sc, p)
		})
	}
	sc.Steps = d.steps.close(sc.Steps)
	if p.prof == boundary && p.edge == outputLands {
		landOutput(d, sc)
	}
	return sc
}

// stepsHint is the room Generate opens for p's ops: a slot is about one
// op, and rebinding and op-flood runs add a few, many more under the
// ops-tight profile, whose floods run past max_ops. Room the ops do not
// use goes back to the slab; ops that outgrow it are copied once.
func (p plan) stepsHint() int {
	if p.prof == opsTight {
		return 2*p.n + 16
	}
	return p.n + p.n/2 + 8
}

// step fills one op slot: nothing (rarely), one op, or a run.
func step(src Source, sc *scenario.Scenario, p plan) {
	if src.Intn(skipOneIn) == 0 {
		return
	}
	cl := drawClass(src, p)
	for n := runLength(src, cl, sc); n > 0 && len(sc.Steps) < p.limit; n-- {
		sc.Steps = append(sc.Steps, scenario.Step{Op: Op(src, cl, sc), Class: cl})
	}
}

// classWeights draw each class in proportion to how hard it is to get right.
// They sum to 100. op-flood is drawn rarely but emits runs; under a tight
// profile its theme class gets themeWeight more.
var classWeights = [attack.NumClasses]int{
	attack.Benign:          7,
	attack.Traversal:       7,
	attack.PrefixSibling:   7,
	attack.DotSegments:     4,
	attack.Encoded:         3,
	attack.Lookalike:       3,
	attack.OutsideAbsolute: 3,
	attack.Relative:        3,
	attack.ControlBytes:    4,
	attack.LongPath:        3,
	attack.UnknownHost:     3,
	attack.HostVariant:     5,
	attack.IPSpelling:      6,
	attack.Metadata:        5,
	attack.Rebinding:       5,
	attack.OpFlood:         1,
	attack.WallJump:        3,
	attack.OutputFlood:     4,
	attack.BudgetBoundary:  4,
	attack.UnknownTool:     2,
	attack.ToolVariant:     3,
	attack.UnknownOp:       1,
	attack.MalformedOp:     2,
	attack.SymlinkEscape:   4,
	attack.SymlinkParent:   3,
	attack.SymlinkLoop:     2,
	attack.Redirect:        3,
}

const themeWeight = 15

// classTable maps a draw in [0, 100) to a class by classWeights, so drawing
// a class costs one Intn and an index; draw 0 is benign.
var classTable = func() (t [100]attack.Class) {
	i := 0
	for c, w := range classWeights {
		for ; w > 0; w-- {
			t[i] = attack.Class(c)
			i++
		}
	}
	if i != len(t) {
		panic("generators: classWeights do not sum to 100")
	}
	return t
}()

func drawClass(src Source, p plan) attack.Class {
	theme := profileTheme[p.prof]
	if theme == attack.Unlabelled {
		return classTable[src.Intn(len(classTable))]
	}
	if r := src.Intn(len(classTable) + themeWeight); r < len(classTable) {
		return classTable[r]
	}
	return theme
}

// runLength is how many ops of cl one slot emits: op-flood runs until just
// past max_ops when that is near, else a short burst; rebinding fetches
// several in a row; every other class emits one.
func runLength(src Source, cl attack.Class, sc *scenario.Scenario) int {
	switch cl {
	case attack.OpFlood:
		if left := sc.Grant.MaxOps - int64(len(sc.Steps)); left >= 0 && left < 150 {
			return int(left) + 1 + src.Intn(4)
		}
		return 2 + src.Intn(6)
	case attack.Rebinding:
		return 1 + src.Intn(3)
	}
	return 1
}
