package oracle

import (
	"testing"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// outputInRunes reports its output usage in code points, not bytes: every
// verdict is the reference's, so only the usage comparison can see it.
type outputInRunes struct {
	wrapped
	runes *int64
}

func (s outputInRunes) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if r.Kind == core.OK {
		*s.runes += int64(utf8.RuneCountInString(r.Data))
	}
	return r
}

func (s outputInRunes) Usage() core.Usage {
	u := s.Reference.Usage()
	u.Output = *s.runes
	return u
}

// wallInReads reports its wall usage as the number of ops charged, a
// clock that counts its reads instead of its ticks; its halts are the
// reference's.
type wallInReads struct{ wrapped }

func (s wallInReads) Usage() core.Usage {
	u := s.Reference.Usage()
	u.Wall = u.Ops
	return u
}

// TestUsageMatchesModelCanFail: a sandbox whose every result is right but
// whose usage counters drift from SPEC §5 fails verdict-matches-model, at
// the first op where the counters differ, and nothing else.
func TestUsageMatchesModelCanFail(t *testing.T) {
	world := scenario.WorldSpec{Files: []scenario.File{{Path: "/work/ascii.txt", Data: "hello"}, {Path: "/work/utf8.txt", Data: "héllo"}}}
	c := testCase(testGrant(roomy), world, []core.Op{
		op("fs_read", "/work/ascii.txt"),
		op("fs_read", "/work/utf8.txt"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return outputInRunes{wrap(g, w), new(int64)} }), c, 2, VerdictMatchesModel)
	mustContain(t, got[0], "fs_read /work/utf8.txt returned ok with 6 bytes as the model does", "output=10 where the model of SPEC §5 has ops=2 wall=0 output=11")

	world.Clock = scenario.TickClock{Start: 100, Step: 3}
	c = testCase(testGrant(roomy), world, []core.Op{op("fs_read", "/work/ascii.txt")})
	got = canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return wallInReads{wrap(g, w)} }), c, 1, VerdictMatchesModel)
	mustContain(t, got[0], "left usage ops=1 wall=1 output=5 where the model of SPEC §5 has ops=1 wall=3 output=5")
}

// reportsDifference reports Now() − t0 as it computes it, whatever the
// reference says once a tick passed 2^63−1.
type reportsDifference struct {
	wrapped
	wall int64
}

func (s reportsDifference) Usage() core.Usage {
	u := s.Reference.Usage()
	u.Wall = s.wall
	return u
}

// TestUsageAtTheTop: a tick past 2^63−1 halts max_wall, and SPEC §5 pins
// no wall for it: a sandbox that reports another number than the
// reference's there is not flagged, while one off by a tick before it is.
func TestUsageAtTheTop(t *testing.T) {
	world := scenario.WorldSpec{Clock: scenario.TickClock{Start: 1, Step: 1<<63 - 1}}
	c := testCase(testGrant(core.Budgets{MaxOps: 10, MaxWall: 1<<63 - 1, MaxOutputBytes: 10}), world, []core.Op{
		op("fs_read", "/work/none"),
		op("fs_read", "/work/none"),
	})
	differs := infallible(func(g core.Grant, w core.World) core.Sandbox { return reportsDifference{wrap(g, w), 1<<63 - 2} })
	if got := check(differs, c, new(Coverage), Options{}); len(got) != 0 {
		t.Fatalf("a wall past int64 is judged: %v", got)
	}
	world.Clock = scenario.TickClock{Start: 1, Step: 1<<62 - 1}
	c = testCase(testGrant(core.Budgets{MaxOps: 10, MaxWall: 1<<63 - 1, MaxOutputBytes: 10}), world, []core.Op{op("fs_read", "/work/none")})
	got := canFail(t, differs, c, 1, VerdictMatchesModel)
	mustContain(t, got[0], "left usage ops=1 wall=9223372036854775806 output=0 where the model of SPEC §5 has ops=1 wall=4611686018427387903 output=0")
}
