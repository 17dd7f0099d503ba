package oracle

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// capRoomy are budgets no op of these tests reaches.
var capRoomy = core.Budgets{MaxOps: 100, MaxWall: 1 << 40, MaxOutputBytes: 1 << 40}

// floods writes an fs_write's data into its world 50 times over, as the
// child of an exec: sandbox did with 50 world/write requests of 7 MB. The
// string is the op's own, so the test allocates nothing for the flood.
type floods struct{ wrapped }

func (s floods) Run(op core.Op) core.Result {
	if op.Kind == core.OpWrite && len(op.Args) == 2 {
		for range 50 {
			s.world.Write(op.Args[0], op.Args[1])
		}
	}
	return s.Reference.Run(op)
}

func floodsFactory(g core.Grant, w core.World) (core.Sandbox, error) { return floods{wrap(g, w)}, nil }

// keptBytes is what a world's journal holds of the calls' arguments.
func keptBytes(w *refworld.World) int64 {
	n := int64(0)
	for _, e := range w.Journal() {
		n += int64(len(e.Name) + len(e.Arg))
	}
	return n
}

// TestOpWorldCap: an op that sends its world more than its cap is a total
// finding at that op that names the cap, its words quote at most
// maxQuoted bytes of the data, and the world keeps no more than the cap of
// it.
func TestOpWorldCap(t *testing.T) {
	data := strings.Repeat("x", 7<<20)
	g := must.Grant(core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/"}, Budgets: capRoomy})
	op := core.Op{Kind: core.OpWrite, Args: []string{"/work/f", data}}
	ops := []core.Op{{Kind: core.OpRead, Args: []string{"/work/f"}}, op, op}
	c := testCase(g, scenario.WorldSpec{}, ops)

	got := canFail(t, floodsFactory, c, 2, Total)
	cap := opWorldCap(worldCapBase(scenario.WorldSpec{}), op)
	if d := got[0].Detail; !strings.Contains(d, "over the per-op cap of "+strconv.FormatInt(cap, 10)+" bytes") || len(d) > 4096 || !strings.Contains(d, "(7340032 bytes in all)") {
		t.Errorf("the finding says %d bytes: %.600s\nwant the cap named and the data cut", len(d), d)
	}

	r := watchWorld(floodsFactory, g, scenario.WorldSpec{}, nil)
	defer r.Close()
	r.Step(ops[0], attack.Unlabelled)
	r.Step(op, attack.Unlabelled)
	if kept := keptBytes(r.World()); kept > cap {
		t.Errorf("the world kept %d bytes of the op, over its cap of %d", kept, cap)
	}
	if !r.Dead() || len(r.Findings()) != 1 {
		t.Errorf("after the flood: dead %v, findings %v; want a dead run and the one total finding", r.Dead(), r.Findings())
	}
}

// TestLegalLargeOpsNotBlamed: ops as large as a scenario file can hold
// (16 MiB: half path, half data), larger ones built in Go, and writes
// through a link with a long target all pass on the reference: the cap
// never blames a correct sandbox.
func TestLegalLargeOpsNotBlamed(t *testing.T) {
	half := "/work/" + strings.Repeat("n", 8<<20)
	big := strings.Repeat("d", maxOpWorldBytes+(6<<20)) // over the least cap by itself
	long := "/work/" + strings.Repeat("t", 4<<20)
	g := must.Grant(core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/"}, Tools: []string{"echo"}, Budgets: capRoomy})
	for _, c := range []checkCase{
		testCase(g, scenario.WorldSpec{}, []core.Op{
			{Kind: core.OpWrite, Args: []string{half, half[:8<<20]}},
			{Kind: core.OpRead, Args: []string{half}},
			{Kind: core.OpWrite, Args: []string{"/work/f", big}},
			{Kind: core.OpTool, Args: []string{"echo", big}},
		}),
		testCase(g, scenario.WorldSpec{Links: []scenario.Link{{Path: "/work/l", Target: long}, {Path: long + "/m", Target: long}}}, []core.Op{
			{Kind: core.OpWrite, Args: []string{"/work/l/m/m/m/x", half}},
		}),
	} {
		if got := check(core.ReferenceFactory, c, new(Coverage), Options{Timeout: time.Minute}); len(got) > 0 {
			t.Errorf("findings on the reference: %.2000s", lines(got))
		}
	}
}

// TestFindingsQuoteDataCut: a finding on a long path and long data quotes
// each cut after maxQuoted bytes, with how long it was, at a UTF-8
// boundary.
func TestFindingsQuoteDataCut(t *testing.T) {
	path := "/etc/" + strings.Repeat("é", 1<<19) // 1 MiB and 5 bytes
	g := must.Grant(core.GrantSpec{FSRead: []string{"/work/"}, FSWrite: []string{"/work/"}, Budgets: capRoomy})
	escapes := func(g core.Grant, w core.World) (core.Sandbox, error) { return writesOutside{wrap(g, w), path}, nil }
	c := testCase(g, scenario.WorldSpec{}, []core.Op{{Kind: core.OpWrite, Args: []string{"/work/f", strings.Repeat("z", 1<<20)}}})
	for _, f := range check(escapes, c, new(Coverage), Options{Timeout: time.Minute}) {
		if len(f.Detail) > 4096 || !strings.Contains(f.Detail, "bytes in all") || !utf8.ValidString(f.Detail) {
			t.Errorf("%s: %d bytes: %.800s", f.Invariant, len(f.Detail), f.Detail)
		}
	}
	if s := quoteData(strings.Repeat("é", 200)); !strings.HasSuffix(s, "… (400 bytes in all)") || !strings.HasPrefix(s, strings.Repeat("é", 128)) {
		t.Errorf("quoteData cut to %q", s)
	}
}

// writesOutside writes the op's data to a path outside every root as
// well, on each fs_write.
type writesOutside struct {
	wrapped
	path string
}

func (s writesOutside) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if op.Kind == core.OpWrite && len(op.Args) == 2 {
		s.world.Write(s.path, op.Args[1])
	}
	return r
}

// TestDescribeStepListsFewEntries: a step that journaled a flood of calls
// is described by its first maxListed entries and how many more there
// were.
func TestDescribeStepListsFewEntries(t *testing.T) {
	entries := make([]refworld.Entry, 1000)
	for i := range entries {
		entries[i] = refworld.Entry{Call: refworld.CallRead, Name: "/work/" + strconv.Itoa(i)}
	}
	got := describeStep(core.Result{Kind: core.OK}, core.Usage{}, entries)
	if !strings.HasSuffix(got, "read /work/7; … and 992 more]") || strings.Contains(got, "/work/8;") {
		t.Errorf("describeStep = %q", got)
	}
}
