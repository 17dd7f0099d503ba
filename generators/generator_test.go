package generators

import (
	"bytes"
	"path"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestGenerator: a Generator's scenarios are Generate's and
// GenerateAtMost's, equal in every field (nil and empty lists included),
// while it reuses its memory from one scenario to the next: long runs of
// scenarios of every size make its slabs grow, rewind and clear, and any
// list that started from the last scenario's leftovers instead of from
// zero would differ.
func TestGenerator(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	g := NewGenerator()
	for seed := uint64(1); seed <= 2; seed++ {
		for i := range uint64(n) {
			got := g.Generate(NewSource(seed, i))
			want := Generate(NewSource(seed, i))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d stream %d: the Generator's scenario differs from Generate's:\n%s\nwant\n%s", seed, i, got.Format(), want.Format())
			}
			n := int(i % 12) // 0 is cut up to 1, 11 past the fuzz targets' 8
			got = g.GenerateAtMost(NewSource(seed, i), n)
			want = GenerateAtMost(NewSource(seed, i), n)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d stream %d: the Generator's scenario of at most %d ops differs from GenerateAtMost's:\n%s\nwant\n%s", seed, i, n, got.Format(), want.Format())
			}
		}
	}
}

// TestGeneratorReuses: once warm, a Generator draws a scenario into the
// memory of the one before (the point of it) and allocates far less than
// Generate; Abandon leaves the last scenario as it was, and Generate after
// it draws elsewhere.
func TestGeneratorReuses(t *testing.T) {
	g := NewGenerator()
	for i := range uint64(200) {
		g.Generate(NewSource(1, i))
	}
	first := g.Generate(NewSource(1, 1000))
	steps := &first.Steps[:1][0]
	second := g.Generate(NewSource(1, 1001))
	if len(second.Steps) > 0 && &second.Steps[:1][0] != steps {
		t.Errorf("a warm Generator drew its next scenario's ops into new memory")
	}

	kept := g.Generate(NewSource(1, 1002))
	before := kept.Format()
	g.Abandon()
	for i := range uint64(50) {
		if sc := g.Generate(NewSource(1, 2000+i)); len(sc.Steps) > 0 && len(kept.Steps) > 0 && &sc.Steps[:1][0] == &kept.Steps[:1][0] {
			t.Fatalf("a scenario drawn after Abandon reuses the abandoned one's ops")
		}
	}
	if after := kept.Format(); !bytes.Equal(before, after) {
		t.Errorf("an abandoned scenario changed:\n%s\nwas\n%s", after, before)
	}

	src := NewSource(1, 3000)
	reused := bytesPerRun(500, func() { g.Generate(src) })
	fresh := bytesPerRun(500, func() { Generate(src) })
	t.Logf("bytes allocated a scenario: Generator %.0f, Generate %.0f", reused, fresh)
	if reused > fresh/2 {
		t.Errorf("a warm Generator allocates %.0f bytes a scenario, Generate %.0f: it reuses little", reused, fresh)
	}
}

// bytesPerRun is the mean number of bytes f allocates.
func bytesPerRun(runs int, f func()) float64 {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(runs)
}

// TestSlabRewind pins how a Generator's slab rewinds: what it handed out
// comes back cleared from base's start; lists that outgrew base make it
// twice as long; abandon leaves what was handed out alone.
func TestSlabRewind(t *testing.T) {
	var s slab[int]
	s.rewind()
	a := s.carve(3) // no base yet: an array is made
	a[0], a[1], a[2] = 1, 2, 3
	s.rewind()
	if len(s.base) != slabLen || len(s.free) != slabLen {
		t.Fatalf("after the first array: base %d free %d, want %d", len(s.base), len(s.free), slabLen)
	}
	b := s.carve(3)
	b[0], b[1], b[2] = 4, 5, 6
	w := s.open(4)
	s.close(append(w, 7))
	s.rewind()
	c := s.carve(5)
	if &c[0] != &b[0] {
		t.Errorf("a rewound slab did not hand out base again from its start")
	}
	if c[0] != 0 || c[1] != 0 || c[2] != 0 || c[3] != 0 || c[4] != 0 {
		t.Errorf("a rewound slab handed out %v, want it cleared", c)
	}
	s.carve(slabLen) // outgrows base
	s.rewind()
	if len(s.base) != 2*slabLen || len(s.free) != 2*slabLen || s.spare != nil {
		t.Errorf("after outgrowing base: base %d free %d spare %d, want %d, %d, 0", len(s.base), len(s.free), len(s.spare), 2*slabLen, 2*slabLen)
	}
	d := s.carve(2)
	d[0], d[1] = 8, 9
	s.abandon()
	e := s.carve(2)
	e[0], e[1] = 1, 1
	if &e[0] == &d[0] || d[0] != 8 || d[1] != 9 {
		t.Errorf("abandon handed out what it left to its readers again")
	}
	s.rewind()
	if len(s.base) != 2*slabLen {
		t.Errorf("abandon forgot base's length: %d", len(s.base))
	}
}

// TestFixRoots: with its roots fixed, a Generator draws every read root
// from one base (and the next, for two roots; /mnt beside a linked root),
// in a few sets of roots only;
// FixRoots(-1) draws as Generate again.
func TestFixRoots(t *testing.T) {
	g := NewGenerator()
	for k, base := range readBases {
		g.FixRoots(k + len(readBases)) // counted modulo the number of bases
		sets := map[string]bool{}
		for i := range uint64(400) {
			sc := g.Generate(NewSource(1, i))
			var set []string
			for _, r := range sc.Grant.FSRead {
				c := path.Clean(r)
				if c != "/" && c != linkedRootsDir && !strings.HasPrefix(c, base) && !strings.HasPrefix(c, readBases[(k+1)%len(readBases)]) {
					t.Fatalf("base %s, scenario %d: a read root %q from another base", base, i, r)
				}
				set = append(set, c)
			}
			sets[strings.Join(set, " ")] = true
		}
		if len(sets) > 10 {
			t.Errorf("base %s: %d sets of read roots in 400 scenarios, want at most 10: %v", base, len(sets), sets)
		}
	}
	drawn := map[string]bool{}
	for i := range uint64(400) {
		drawn[strings.Join(Generate(NewSource(1, i)).Grant.FSRead, " ")] = true
	}
	if len(drawn) <= 10 {
		t.Errorf("Generate drew only %d sets of read roots in 400 scenarios: the bound above proves nothing", len(drawn))
	}
	g.FixRoots(-1)
	for i := range uint64(200) {
		if got, want := g.Generate(NewSource(1, i)), Generate(NewSource(1, i)); !reflect.DeepEqual(got, want) {
			t.Fatalf("after FixRoots(-1), scenario %d differs from Generate's", i)
		}
	}
}

// TestLinksInEitherRoot: with the base fixed, as a campaign on a server
// fixes it, the links of a pair of read roots are planted below either
// one, so a sandbox that checks its first directory apart from the rest
// (a base path, then extra allowed paths) meets escape links in both. The
// pairs counted are two bases' roots, in sorted order, as a door hands a
// server its directories.
func TestLinksInEitherRoot(t *testing.T) {
	g := NewGenerator()
	for k, base := range readBases {
		g.FixRoots(k)
		var linked [2]int // pairs with a link below their first, their second sorted root
		for i := range uint64(400) {
			sc := g.Generate(NewSource(1, i))
			if len(sc.Grant.FSRead) != 2 {
				continue
			}
			roots := []string{rootBase(sc.Grant.FSRead[0]), rootBase(sc.Grant.FSRead[1])}
			if !slices.Contains(readBases, roots[0]) || !slices.Contains(readBases, roots[1]) {
				continue
			}
			slices.Sort(roots)
			for j, r := range roots {
				if slices.ContainsFunc(sc.World.Links, func(l scenario.Link) bool { return under(spec.Canonical(l.Path), r) }) {
					linked[j]++
				}
			}
		}
		if linked[0] == 0 || linked[1] == 0 {
			t.Errorf("base %s: pairs of two bases' roots with a link below the first sorted root %d, below the second %d; want both", base, linked[0], linked[1])
		}
	}
}
