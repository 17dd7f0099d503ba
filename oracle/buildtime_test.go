package oracle

import (
	"net/netip"
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
)

// A sandbox may ask its world things while it is built, before its first
// op: an MCP filesystem server resolves its allowed directories at start.
// Those requests belong to the open, in the watched run and in the replay
// alike; they are held to the grant, and the two builds must agree.

// resolvingRoots is the reference built by a factory that first resolves
// every root of its grant, as a server resolving its allowed directories
// does.
func resolvingRoots(g core.Grant, w core.World) (core.Sandbox, error) {
	for _, root := range slices.Concat(g.FSRead(), g.FSWrite()) {
		w.Realpath(root)
	}
	return core.NewReference(g, w), nil
}

// TestBuildTimeRequestsAreNotStepOnes: a correct sandbox that resolves its
// roots while it is built is clean on generated scenarios. Compared from
// the start of the journal, the first run's step 1 would carry the build's
// realpaths and the replay's would not: replay-deterministic on every
// scenario whose grant has a root.
func TestBuildTimeRequestsAreNotStepOnes(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	k := newChecker(resolvingRoots, Options{}, nil)
	defer k.Close()
	var cov Coverage
	withRoots := 0
	for i := range n {
		sc := generators.Generate(generators.NewSource(0x6f70656e, uint64(i))) // "open"
		c, err := newCase(sc)
		if err != nil {
			continue // an invalid grant builds no sandbox
		}
		if len(sc.Grant.FSRead)+len(sc.Grant.FSWrite) > 0 && len(sc.Steps) > 0 {
			withRoots++
		}
		if got := k.checkOn(resolvingRoots, c, &cov); len(got) > 0 {
			t.Fatalf("scenario %d: %v\n%s", i, got, sc.Format())
		}
	}
	if withRoots < n/2 {
		t.Fatalf("only %d of %d scenarios have a root and an op: the test proves little", withRoots, n)
	}
	if cov.Classes[attack.Unlabelled].Checked[Confinement] == 0 {
		t.Fatal("the builds' requests were never judged")
	}
	t.Logf("%d scenarios, %d with a root and an op, %d ops", n, withRoots, cov.Ops)
}

// TestBuildTimeEntriesAreNotInStepReports: the step report of step 1 shows
// step 1's entries only, not the build's, as the step table of a replay
// prints them.
func TestBuildTimeEntriesAreNotInStepReports(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt")})
	var reports []engine.StepReport
	got := checkObserved(resolvingRoots, c, new(Coverage), Options{}, func(r engine.StepReport) {
		r.Entries = slices.Clone(r.Entries)
		reports = append(reports, r)
	})
	if len(got) > 0 {
		t.Fatalf("findings on a correct sandbox: %v", got)
	}
	if len(reports) != 1 {
		t.Fatalf("%d step reports, want 1", len(reports))
	}
	want := []string{"realpath /work/data.txt -> /work/data.txt", "read /work/data.txt"}
	var entries []string
	for _, e := range reports[0].Entries {
		entries = append(entries, e.String())
	}
	if !slices.Equal(entries, want) {
		t.Fatalf("step 1's entries %q, want %q", entries, want)
	}
}

// TestBuildsThatDifferAreReplayNondeterministic: a sandbox whose first
// build resolves its roots and whose second does not is not deterministic,
// and the finding says it is the builds that differ, with their entries.
func TestBuildsThatDifferAreReplayNondeterministic(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt")})
	builds := 0
	onlyFirstResolves := func(g core.Grant, w core.World) (core.Sandbox, error) {
		builds++
		if builds == 1 {
			return resolvingRoots(g, w)
		}
		return core.NewReference(g, w), nil
	}
	got := canFail(t, onlyFirstResolves, c, 0, ReplayDeterministic)
	mustContain(t, got[0], "the two builds differ", "realpath /work/ -> /work", "realpath /work/out/ -> /work/out", "the second no journal entry")
}

// opensWith is the reference built by a factory that first makes the
// world calls open does to w: a sandbox that asks its world something at
// open.
func opensWith(open func(w core.World)) core.Factory {
	return func(g core.Grant, w core.World) (core.Sandbox, error) {
		open(w)
		return core.NewReference(g, w), nil
	}
}

// TestBuildTimeRequestsAreJudged: what a sandbox asks of its world while it
// is built is held to the grant like an op's entries, at step 0 — a
// deterministic build is no replay finding, but a build that writes,
// reads or resolves outside its roots, calls a tool it was not granted or
// fetches without resolving breaks confinement or no-internal-egress.
func TestBuildTimeRequestsAreJudged(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt")})
	for _, tc := range []struct {
		name string
		open func(w core.World)
		want ID
		says string
	}{
		{"write outside", func(w core.World) { w.Write("/etc/cron.d/x", "pwned") }, Confinement,
			`write /etc/cron.d/x pwned, but "/etc/cron.d/x" is under no fs_write root ("/work/out/")`},
		{"write under read root only", func(w core.World) { w.Write("/work/notes.txt", "x") }, Confinement,
			`"/work/notes.txt" is under no fs_write root`},
		{"read outside", func(w core.World) { w.Read("/workshop/secret") }, Confinement,
			`"/workshop/secret" is under no fs_read root ("/work/")`},
		{"resolve outside", func(w core.World) { w.Realpath("/etc") }, Confinement,
			`"/etc" is under no fs_read root ("/work/") and no fs_write root ("/work/out/")`},
		{"resolve with traversal", func(w core.World) { w.Realpath("/work/../etc") }, Confinement,
			`"/work/../etc" has a .. segment`},
		{"tool not granted", func(w core.World) { w.Call("rm", "-rf") }, Confinement,
			`"rm" is not a granted tool`},
		{"fetch without resolve", func(w core.World) {
			w.Fetch("api.internal", netip.MustParseAddr("10.0.0.1"), "/status")
		}, NoInternalEgress, "before any op, it fetched from 10.0.0.1, an internal address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := canFail(t, opensWith(tc.open), c, 0, tc.want)
			mustContain(t, got[0], "while the sandbox was built", tc.says)
		})
	}
}

// TestBuildTimeRequestsUnderTheRootsAreClean: reads and resolves under the
// roots at open, and a granted tool, break nothing.
func TestBuildTimeRequestsUnderTheRootsAreClean(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt"), op("fs_write", "/work/out/a", "b")})
	f := opensWith(func(w core.World) {
		w.Realpath("/work/out")
		w.Realpath("/work/data.txt")
		w.Read("/work/data.txt")
		w.Call("echo", "hi")
	})
	if got := check(f, c, new(Coverage), Options{}); len(got) > 0 {
		t.Fatalf("findings: %v", got)
	}
}

// TestBetweenStepsIsJudgedAtTheNext: what a sandbox's stray goroutine asks
// the world between two steps (here the metadata address, fetched once
// the first step was judged and before the second began) is judged at the
// second step, not left to none.
func TestBetweenStepsIsJudgedAtTheNext(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt"), op("fs_read", "/work/data.txt")})
	start, done := make(chan struct{}), make(chan struct{})
	builds := 0
	stray := func(g core.Grant, w core.World) (core.Sandbox, error) {
		builds++
		if builds == 1 { // the watched run's sandbox, not the replay's
			go func() {
				<-start
				w.Fetch("metadata", netip.MustParseAddr("169.254.169.254"), "/latest/meta-data/")
				close(done)
			}()
		}
		return core.NewReference(g, w), nil
	}
	got := checkObserved(stray, c, new(Coverage), Options{}, func(r engine.StepReport) {
		if r.Step == 1 {
			close(start)
			<-done
		}
	})
	i := slices.IndexFunc(got, func(f Finding) bool { return f.Invariant == NoInternalEgress })
	if i < 0 || got[i].Step != 2 {
		t.Fatalf("findings %v, want no-internal-egress at step 2", got)
	}
}
