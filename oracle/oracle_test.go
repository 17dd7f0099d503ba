package oracle

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge/engine"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// testGrant is the worked trace's grant with room for every test.
func testGrant(b core.Budgets) core.Grant {
	return must.Grant(core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"},
		NetHosts: []string{"api.internal"}, Tools: []string{"echo"},
		Budgets: b,
	})
}

var roomy = core.Budgets{MaxOps: 100, MaxWall: 1000, MaxOutputBytes: 1000}

// testWorld has a secret next to the root, so a leaked read returns data.
var testWorld = scenario.WorldSpec{
	Files: []scenario.File{
		{Path: "/work/data.txt", Data: "hello"},
		{Path: "/workshop/secret", Data: "s3cr3t"},
	},
	Routes: []scenario.Route{{Host: "api.internal", Path: "/status", Body: "ok"}},
	Clock:  scenario.TickClock{Start: 0, Step: 1},
}

func op(kind string, args ...string) core.Op { return core.Op{Kind: kind, Args: args} }

// canFail runs sc on the broken sandbox and on the reference. It wants the
// broken one to violate exactly the invariants in want, the first of them
// at step, and the reference to pass.
func canFail(t *testing.T, broken core.Factory, c checkCase, step int, want ...ID) []Finding {
	t.Helper()
	if got := check(core.ReferenceFactory, c, new(Coverage), Options{}); len(got) != 0 {
		t.Fatalf("the reference fails the scenario: %v", got)
	}
	got := check(broken, c, new(Coverage), Options{Timeout: time.Second})
	var ids []ID
	for _, f := range got {
		ids = append(ids, f.Invariant)
	}
	slices.Sort(ids)
	slices.Sort(want)
	if diff := cmp.Diff(want, ids, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("violated invariants mismatch (-want +got):\n%s\nfindings:\n%s", diff, lines(got))
	}
	if got[0].Invariant != want[0] && len(want) == 1 || got[0].Step != step {
		t.Fatalf("first finding at step %d, want step %d: %v", got[0].Step, step, got[0])
	}
	t.Logf("%s", lines(got))
	return got
}

func lines(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func mustContain(t *testing.T, f Finding, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(f.String(), p) {
			t.Errorf("finding %q does not say %q", f, p)
		}
	}
}

func TestNoEffectOnDenialCanFail(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("fs_write", "/system/boot.cfg", "pwned"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return peekOnDenial{wrap(g, w)} }), c, 2, NoEffectOnDenial)
	mustContain(t, got[0], "step 2", "fs_write_denied", `read /work/data.txt`)
}

func TestConfinementCanFail(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_read", "/etc/passwd"),
		op("fs_read", "/work/data.txt"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return readsSibling{wrap(g, w)} }), c, 2, Confinement)
	mustContain(t, got[0], `"/workshop/secret" is under no fs_read root ("/work/")`, "ok with 5 bytes")
}

// TestConfinementNamesTheConnection: a lookup of a host the grant does
// not list is the first entry judged, and the connection that followed it
// is named too, not left to the replay's journal.
func TestConfinementNamesTheConnection(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("net_fetch", "api.internal", "/status")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return alsoFetches{wrap(g, w)} }), c, 1, Confinement)
	mustContain(t, got[0], "the journal shows resolve evil.test -> 203.0.113.1, and then fetch evil.test 203.0.113.1 /, but")
}

// TestConfinementNamesTheWrite: a realpath of a path outside the roots,
// made before the check, is the first entry judged, and the write that
// followed it is named too.
func TestConfinementNamesTheWrite(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/workshop/x", "y")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return resolvesThenWrites{wrap(g, w)} }), c, 1, Confinement, VerdictMatchesModel)
	mustContain(t, got[0], "the journal shows realpath /workshop/x -> /workshop/x, and then write /workshop/x y, but")
}

// TestVerdictSaysWhereTheOpLands: a write the model denies for its path,
// which the world's links lead under a root, is a verdict-matches-model
// finding whose words say where it lands.
func TestVerdictSaysWhereTheOpLands(t *testing.T) {
	w := testWorld
	w.Links = []scenario.Link{{Path: "/workshop/ln-back", Target: "/work/out/x"}}
	c := testCase(testGrant(roomy), w, []core.Op{op("fs_write", "/workshop/ln-back", "y")})
	got := check(infallible(func(g core.Grant, w core.World) core.Sandbox { return resolvesThenWrites{wrap(g, w)} }), c, new(Coverage), Options{Timeout: time.Second})
	i := slices.IndexFunc(got, func(f Finding) bool { return f.Invariant == VerdictMatchesModel })
	if i < 0 || !strings.Contains(got[i].Detail, `the world's links lead it to "/work/out/x", under one`) {
		t.Errorf("findings:\n%s", lines(got))
	}
	plain := check(infallible(func(g core.Grant, w core.World) core.Sandbox { return resolvesThenWrites{wrap(g, w)} }),
		testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/workshop/x", "y")}), new(Coverage), Options{Timeout: time.Second})
	if strings.Contains(lines(plain), "lead it to") {
		t.Errorf("a path no link leads anywhere: %s", lines(plain))
	}
}

// TestNoEffectOnDenialCatchesResolvingFirst: a path the allow-list refuses
// must not reach the world, not even to be resolved; the realpath is also
// of a path outside the roots.
func TestNoEffectOnDenialCatchesResolvingFirst(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("fs_read", "/workshop/secret"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return resolvesFirst{wrap(g, w)} }), c, 2, NoEffectOnDenial, Confinement)
	for _, f := range got {
		mustContain(t, f, "step 2", "realpath /workshop/secret -> /workshop/secret")
	}
	mustContain(t, got[1], `"/workshop/secret" is under no fs_read root ("/work/"): a path is resolved only after it passes the allow-list`)
}

// TestNoEffectOnDenialKeepsOnlyItsOwnRealpath: the one entry a denial may
// keep is the realpath of its own path; another, even an authorized one,
// is an effect.
func TestNoEffectOnDenialKeepsOnlyItsOwnRealpath(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("fs_read", "/etc/passwd"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return resolvesAnother{wrap(g, w)} }), c, 2, NoEffectOnDenial)
	mustContain(t, got[0], "fs_read_denied", "realpath /work/data.txt -> /work/data.txt")
}

// linkedWorld is testWorld with links out of the roots (SPEC §13): one to
// the prefix sibling's secret, one from the write root to /etc, and one
// inside the read root.
var linkedWorld = scenario.WorldSpec{
	Files:  testWorld.Files,
	Routes: testWorld.Routes,
	Clock:  testWorld.Clock,
	Links: []scenario.Link{
		{Path: "/work/link", Target: "/workshop/secret"},
		{Path: "/work/out/etc", Target: "../../etc"},
		{Path: "/work/alias", Target: "data.txt"},
	},
}

// TestDenialOnTheResolvedPathKeepsItsRealpath: over a world whose links
// lead out of the roots, the reference refuses on the resolved path and
// keeps exactly the realpath entry, which every invariant accepts, the
// model's verdict included.
func TestDenialOnTheResolvedPathKeepsItsRealpath(t *testing.T) {
	c := testCase(testGrant(roomy), linkedWorld, []core.Op{
		op("fs_read", "/work/link"),
		op("fs_write", "/work/out//etc/cron", "pwned"),
		op("fs_read", "/work/alias"),
	})
	var results []core.Result
	var journal []string // the entries each step added, copied: they are valid only during Check
	observe := func(s engine.StepReport) {
		results = append(results, s.Result)
		for _, e := range s.Entries {
			journal = append(journal, e.String())
		}
	}
	if got := checkObserved(core.ReferenceFactory, c, new(Coverage), Options{}, observe); len(got) != 0 {
		t.Fatalf("findings %v, want none", lines(got))
	}
	want := []core.Result{{Kind: core.FSReadDenied}, {Kind: core.FSWriteDenied}, {Kind: core.OK, Data: "hello"}}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("results mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{
		"realpath /work/link -> /workshop/secret",
		"realpath /work/out//etc/cron -> /etc/cron",
		"realpath /work/alias -> /work/data.txt", "read /work/data.txt",
	}, journal); diff != "" {
		t.Errorf("journal mismatch (-want +got):\n%s", diff)
	}
}

// resolvesClean is the reference but for one spelling: it resolves
// Clean(p) where the reference resolves p, which is the same lookup.
type resolvesClean struct{ core.World }

func (w resolvesClean) Realpath(p string) (string, bool) { return w.World.Realpath(spec.Canonical(p)) }

// TestResolvingTheCleanPathIsNoEffect: a denial on the resolved path may
// keep the realpath of its path in any spelling, and so may a
// max_output_bytes halt: a sandbox that resolves Clean(p) is correct.
func TestResolvingTheCleanPathIsNoEffect(t *testing.T) {
	c := testCase(testGrant(core.Budgets{MaxOps: 100, MaxWall: 1000, MaxOutputBytes: 3}), linkedWorld, []core.Op{
		op("fs_read", "/work//link"),
		op("fs_write", "/work/out/./etc/cron", "x"),
		op("fs_read", "/work/./data.txt"),
	})
	if got := check(infallible(func(g core.Grant, w core.World) core.Sandbox {
		return core.NewReference(g, resolvesClean{w})
	}), c, new(Coverage), Options{}); len(got) != 0 {
		t.Errorf("findings %v, want none", lines(got))
	}
}

// skipsRealpath checks the lexical path and never resolves it, then acts on
// it: the world follows the links anyway (the CVE-2025-53109 shape).
type skipsRealpath struct {
	wrapped
	output *int64 // the bytes its own reads returned, which the reference did not count
}

func (s skipsRealpath) Usage() core.Usage {
	u := s.Reference.Usage()
	u.Output += *s.output
	return u
}

func (s skipsRealpath) Run(op core.Op) core.Result {
	if op.Kind == core.OpRead && len(op.Args) == 1 && !spec.HasTraversal(op.Args[0]) && s.grant.MayRead(op.Args[0]) {
		s.Reference.Run(core.Op{Kind: "charge"}) // an unknown op: charged like this one, no effect
		if d, ok := s.world.Read(op.Args[0]); ok {
			*s.output += int64(len(d)) // the test's budgets are roomy: no output halt to model
			return core.Result{Kind: core.OK, Data: d}
		}
		return core.Result{Kind: core.NotFound}
	}
	return s.Reference.Run(op)
}

// writesUnresolved resolves a write's path and checks the answer, then
// writes the path it was asked: the world follows the link out of the
// roots.
type writesUnresolved struct{ wrapped }

func (s writesUnresolved) Run(op core.Op) core.Result {
	if op.Kind == core.OpWrite && len(op.Args) == 2 && s.grant.MayWrite(op.Args[0]) {
		s.Reference.Run(core.Op{Kind: "charge"})
		s.world.Realpath(op.Args[0])
		s.world.Write(op.Args[0], op.Args[1])
		return core.Result{Kind: core.OK}
	}
	return s.Reference.Run(op)
}

// TestConfinementJudgesThePathReached: a read that never resolves its
// path, and a write that resolves one path and writes another, are judged
// on the path the world's links really lead them to.
func TestConfinementJudgesThePathReached(t *testing.T) {
	c := testCase(testGrant(roomy), linkedWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("fs_read", "/work/link"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return skipsRealpath{wrap(g, w), new(int64)} }), c, 2, Confinement, VerdictMatchesModel)
	mustContain(t, got[0], "fs_read /work/link returned ok", "read /work/link",
		`"/work/link" resolves through the world's links to "/workshop/secret", which is under no fs_read root`)

	c = testCase(testGrant(roomy), linkedWorld, []core.Op{
		op("fs_write", "/work/out/etc/cron", "pwned"),
	})
	got = canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return writesUnresolved{wrap(g, w)} }), c, 1, Confinement, VerdictMatchesModel)
	mustContain(t, got[0], `"/work/out/etc/cron" resolves through the world's links to "/etc/cron", which is under no fs_write root`)
}

func TestNoInternalEgressCanFail(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("net_fetch", "evil.com", "/x"),
		op("net_fetch", "api.internal", "/status"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox {
		return core.NewReference(g, loopbackFetcher{w})
	}), c, 2, NoInternalEgress)
	mustContain(t, got[0], "127.0.0.1", "loopback")
}

func TestHaltLatchedCanFail(t *testing.T) {
	c := testCase(testGrant(core.Budgets{MaxOps: 1, MaxWall: 1000, MaxOutputBytes: 1000}), testWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("fs_read", "/work/data.txt"),
		op("fs_read", "/work/data.txt"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox {
		return chargesWhileHalted{wrap(g, w), new(int64)}
	}), c, 3, HaltLatched)
	mustContain(t, got[0], "halted with max_ops earlier", "usage")
}

func TestChargeBeforeDispatchCanFail(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("fs_read", "/etc/shadow"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox {
		return uncountedDenials{wrap(g, w), new(int64)}
	}), c, 2, ChargeBeforeDispatch)
	mustContain(t, got[0], "op 2 past the halt gate", "counts 1 ops")
}

// TestOutputBoundedCanFail: returning more than the budget allows always
// disagrees with the model too, which never does; the pair is expected.
func TestOutputBoundedCanFail(t *testing.T) {
	c := testCase(testGrant(core.Budgets{MaxOps: 100, MaxWall: 1000, MaxOutputBytes: 7}), testWorld, []core.Op{
		op("tool", "echo", "12345"),
		op("tool", "echo", "678"),
	})
	got := canFail(t, infallible(ignoresOutputBudget), c, 2, OutputBounded, VerdictMatchesModel)
	mustContain(t, got[0], "over max_output_bytes 7")
}

func TestVerdictMatchesModelCanFail(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("fs_read", "/workshop/secret"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return notFoundOutside{wrap(g, w)} }), c, 2, VerdictMatchesModel)
	mustContain(t, got[0], "returned not_found", "gives fs_read_denied", "under no fs_read root")
}

// TestVerdictOnAFetchSaysTheAddress: a fetch's verdict names the address
// the model resolved, and says when it is a documentation address, which
// a guard stricter than SPEC §6 refuses.
func TestVerdictOnAFetchSaysTheAddress(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("net_fetch", "api.internal", "/status")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return refusesDocumentation{wrap(g, w)} }), c, 1, VerdictMatchesModel)
	mustContain(t, got[0], "returned egress_internal", "gives ok", `"api.internal" resolves to 203.0.113.1, not internal by SPEC §6 (a documentation address`)
}

// TestVerdictOnARedirectSaysSo: a fetch the world answers with a
// redirect, refused by a sandbox that followed it and refused where it
// leads, says that the model's answer is the redirect itself; a route
// that is no redirect says nothing of one.
func TestVerdictOnARedirectSaysSo(t *testing.T) {
	for _, tc := range []struct {
		route string
		says  bool
	}{
		{"redirect api.internal /status http://[fd00:ec2::254]/", true},
		{"route api.internal /status up", false},
	} {
		w, err := scenario.Parse("w.sbx", []byte(tc.route+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		c := testCase(testGrant(roomy), w.World, []core.Op{op("net_fetch", "api.internal", "/status")})
		got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return refusesDocumentation{wrap(g, w)} }), c, 1, VerdictMatchesModel)
		const words = `the world answers it with a redirect to "http://[fd00:ec2::254]/", which SPEC §5 returns as it is`
		if strings.Contains(got[0].String(), words) != tc.says {
			t.Errorf("%s: %q; want the redirect said: %v", tc.route, got[0], tc.says)
		}
	}
}

// TestVerdictOnASpellingSaysWhoReadsIt: a fetch's verdict on an IPv4
// spelling only inet_aton reads says that a resolver that does not read
// it gets no answer, and on an IPv6 form carrying a public IPv4 address
// names the form and the address; a dotted quad gets neither note.
func TestVerdictOnASpellingSaysWhoReadsIt(t *testing.T) {
	for host, note := range map[string]string{
		"1.0":                "(an IPv4 spelling only inet_aton reads: a resolver that does not read it asks DNS",
		"64:ff9b::5db8:d707": "(the NAT64 form of 93.184.215.7, a public address: a guard that refuses every NAT64 address",
		"93.184.215.7":       "",
	} {
		g := must.Grant(core.GrantSpec{NetHosts: []string{host}, Budgets: roomy})
		c := testCase(g, scenario.WorldSpec{}, []core.Op{op("net_fetch", host, "/")})
		got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return refusesFetches{wrap(g, w)} }), c, 1, VerdictMatchesModel)
		mustContain(t, got[0], "returned egress_internal", "gives not_found", "not internal by SPEC §6", note)
		if note == "" && strings.Contains(got[0].String(), "stricter") {
			t.Errorf("%s: %q calls a dotted quad's refusal stricter", host, got[0])
		}
	}
}

// TestVerdictOnDataAloneQuotesIt: a result whose kind is the model's and
// whose data is not quotes both data, so that "ok" is not read as a match.
func TestVerdictOnDataAloneQuotesIt(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return emptyReads{wrap(g, w)} }), c, 1, VerdictMatchesModel)
	mustContain(t, got[0], `returned ok with no data, but the model of SPEC §5 gives ok with "hello"`)
}

// TestVerdictOnWhatAWriteLeft: a write that answers ok as the model does
// but leaves other bytes than its data is a finding at that write, where
// before only a read of the file after it could show it; no bytes at all
// are said so (a door journals a file gone, or never made, so).
func TestVerdictOnWhatAWriteLeft(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/work/out/a.png", "hello")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return decodesWrites{wrap(g, w)} }), c, 1, VerdictMatchesModel)
	mustContain(t, got[0], `fs_write /work/out/a.png hello returned ok as the model does, but left "/work/out/a.png" holding "HELLO" where the model of SPEC §5 writes "hello"`)
	got = canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return emptiesWrites{wrap(g, w)} }), c, 1, VerdictMatchesModel)
	mustContain(t, got[0], `fs_write /work/out/a.png hello returned ok as the model does, but left "/work/out/a.png" empty or with no file where the model of SPEC §5 writes "hello"`)
}

// TestVerdictOnWhatAWriteLeftInAnySpelling: a write journaled under
// another spelling of the path the model writes — unclean, or a link to
// it — lands in the same file (SPEC §1 stores at Clean(p), §13 follows
// links), so the bytes it left there are judged as for the path itself.
func TestVerdictOnWhatAWriteLeftInAnySpelling(t *testing.T) {
	w := testWorld
	w.Links = []scenario.Link{{Path: "/work/out/alias", Target: "real"}}
	for _, path := range []string{"/work/out//a", "/work/out/./a", "/work/out/alias"} {
		c := testCase(testGrant(roomy), w, []core.Op{op("fs_write", path, "hello")})
		got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return writesAsAsked{wrap(g, w)} }), c, 1, VerdictMatchesModel)
		mustContain(t, got[0], `holding "HELLO" where the model of SPEC §5 writes "hello"`)
	}
}

// TestVerdictSaysWhatTheSandboxDid: an op the model refuses and a
// sandbox allowed is said with what it wrote there, which a reader would
// otherwise look for in the replay's journal.
func TestVerdictSaysWhatTheSandboxDid(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/workshop/x", "y")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return resolvesThenWrites{wrap(g, w)} }), c, 1, Confinement, VerdictMatchesModel)
	i := slices.IndexFunc(got, func(f Finding) bool { return f.Invariant == VerdictMatchesModel })
	mustContain(t, got[i], `is under no fs_write root ("/work/out"); it did write /workshop/x y`)
}

// TestVerdictOnLongDataSaysWhereItParts: data that differ past what a
// finding quotes of each are said where they first differ, since the
// quoted starts are the same.
func TestVerdictOnLongDataSaysWhereItParts(t *testing.T) {
	w := testWorld
	w.Files = []scenario.File{{Path: "/work/big", Data: strings.Repeat("0123456789", 40)}}
	c := testCase(testGrant(roomy), w, []core.Op{op("fs_read", "/work/big")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return cutsLongReads{wrap(g, w)} }), c, 1, VerdictMatchesModel)
	mustContain(t, got[0], `(they first differ at byte 300: …"678901234567890123456789..." where the model has …"678901234567890123456789012345678901234567890123"…)`)
}

// TestConfinementNamesADirectoryMade: a directory made outside the write
// roots, journaled as a write of nothing to its path and a slash, is said
// to be one.
func TestConfinementNamesADirectoryMade(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/etc/new/x", "y")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return makesDirOnDenial{wrap(g, w)} }), c, 1, NoEffectOnDenial, Confinement)
	i := slices.IndexFunc(got, func(f Finding) bool { return f.Invariant == Confinement })
	mustContain(t, got[i], `the journal shows write /etc/new/ "" (a directory made or changed), but`)
	i = slices.IndexFunc(got, func(f Finding) bool { return f.Invariant == NoEffectOnDenial })
	mustContain(t, got[i], `first "write /etc/new/ \"\"" (a directory made or changed)`)
}

// TestNoEffectSaysTheModelAllows: a refusal that changed the world, of an
// op the model allows, says so: the sandbox failed after it acted.
func TestNoEffectSaysTheModelAllows(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/work/out/d/x", "y")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return failsAfterMkdir{wrap(g, w)} }), c, 1, NoEffectOnDenial, VerdictMatchesModel)
	i := slices.IndexFunc(got, func(f Finding) bool { return f.Invariant == NoEffectOnDenial })
	mustContain(t, got[i], `fs_write /work/out/d/x y was refused with fs_write_denied where the model allows the op, but the world changed`)
	c = testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/etc/new/x", "y")})
	got = canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return makesDirOnDenial{wrap(g, w)} }), c, 1, NoEffectOnDenial, Confinement)
	i = slices.IndexFunc(got, func(f Finding) bool { return f.Invariant == NoEffectOnDenial })
	if strings.Contains(got[i].Detail, "model allows") {
		t.Errorf("a write the model refuses: %q says the model allows it", got[i].Detail)
	}
}

// TestConfinementSaysAboveTheRoot: a change above the world's root is
// said to lie there, not to have a ".." segment.
func TestConfinementSaysAboveTheRoot(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/work/out/a", "y")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return writesAboveRoot{wrap(g, w)} }), c, 1, Confinement)
	mustContain(t, got[0], `"/../d/" lies above the world's root, under no fs_write root`)
}

// TestVerdictOnATrimmedPath: a sandbox that trims a path's white space
// reads a file the path asked does not name; the words say so.
func TestVerdictOnATrimmedPath(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt\t")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return trimsPaths{wrap(g, w)} }), c, 1, VerdictMatchesModel)
	mustContain(t, got[0], `the path begins or ends with white space: a sandbox that trims it acts on another path`)
}

func TestReplayDeterministicCanFail(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_write", "/work/out/a", "x"),
		op("fs_read", "/work/data.txt"),
	})
	got := canFail(t, flakyFactory(), c, 0, ReplayDeterministic)
	mustContain(t, got[0], "step 2", "read /work/data.txt")
}

// TestReplayFailureWords: an op that fails in the replay, and returned in
// the first run, is a total finding on that op, as a hang there is, in
// the words of the failure: a door's Failure (its process exited, say) is
// no panic of the sandbox's. A factory that panics building the replay's
// sandbox is one on the build.
func TestReplayFailureWords(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/work/out/a", "x"), op("fs_read", "/work/data.txt")})
	for _, tc := range []struct {
		name  string
		p     any
		build bool
		step  int
		words string
	}{
		{"a door's failure", &door.Failure{Err: errors.New("the proxy exited with status 137")}, false, 1,
			"fs_write /work/out/a x failed: the proxy exited with status 137 in the replay, though it returned in the first run"},
		{"a panic", "boom", false, 1, "fs_write /work/out/a x panicked: boom in the replay, though it returned in the first run"},
		{"a panic building", "boom", true, 0, "building the sandbox a second time, for the replay, panicked: boom"},
	} {
		built := 0
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			built++
			if tc.build && built > 1 {
				panic(tc.p)
			}
			return diesOnReplay{wrap(g, w), built > 1, tc.p}, nil
		}
		var cov Coverage
		got := check(f, c, &cov, Options{Timeout: time.Second})
		if len(got) != 1 || got[0].Invariant != Total || got[0].Step != tc.step || !strings.Contains(got[0].Detail, tc.words) {
			t.Errorf("%s: %s\nwant one %s at step %d saying %q", tc.name, lines(got), Total, tc.step, tc.words)
		}
		if v := cov.Classes[c.class(tc.step-1)].Violations[Total]; v != 1 {
			t.Errorf("%s: %d total violations counted under the op's class, want 1", tc.name, v)
		}
	}
}

// TestReplayDataSaysWhereItParts: a replay whose data differ from the
// run's past what a finding quotes, in bytes of one length (a random name
// a tool appends to a long answer), says where they part.
func TestReplayDataSaysWhereItParts(t *testing.T) {
	w := testWorld
	w.Files = []scenario.File{{Path: "/work/big", Data: strings.Repeat("0123456789", 40)}}
	c := testCase(testGrant(roomy), w, []core.Op{op("fs_read", "/work/big")})
	built := 0
	f := func(g core.Grant, w core.World) (core.Sandbox, error) {
		built++
		return marksReplay{wrap(g, w), built > 1}, nil
	}
	got := check(f, c, new(Coverage), Options{Timeout: time.Second})
	if len(got) != 1 || got[0].Invariant != ReplayDeterministic {
		t.Fatalf("%s\nwant one %s", lines(got), ReplayDeterministic)
	}
	mustContain(t, got[0], `(they first differ at byte 396: …"234567890123456789012345XXXX" where the first run has …"2345678901234567890123456789")`)
}

// marksReplay writes XXXX over the last bytes of a read's data in the
// replay, keeping its length.
type marksReplay struct {
	wrapped
	replay bool
}

func (s marksReplay) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if s.replay && op.Kind == core.OpRead && len(r.Data) > 4 {
		r.Data = r.Data[:len(r.Data)-4] + "XXXX"
	}
	return r
}

// diesOnReplay panics with p on every op of the replay.
type diesOnReplay struct {
	wrapped
	replay bool
	p      any
}

func (s diesOnReplay) Run(op core.Op) core.Result {
	if s.replay {
		panic(s.p)
	}
	return s.Reference.Run(op)
}

func TestGrantImmutableCanFail(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt")})
	got := canFail(t, infallible(newLeakyGrant), c, 0, GrantImmutable)
	mustContain(t, got[0], "authority widened", `"/"`)
}

// TestGrantImmutableFreshViews: a sandbox that hands out a fresh view of
// copies on every Grant call has an immutable grant, though each view,
// once scribbled on, reads widened: the check must read a new view.
func TestGrantImmutableFreshViews(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt")})
	if got := check(infallible(func(g core.Grant, w core.World) core.Sandbox { return freshViews{wrap(g, w)} }), c, new(Coverage), Options{}); len(got) != 0 {
		t.Fatalf("a sandbox handing out fresh views of copies fails grant-immutable:\n%s", lines(got))
	}
}

// swapsGrant hands out its core.Grant until the run starts, then another
// core.Grant with a wider fs_read: two immutable grants, but not the same.
type swapsGrant struct {
	wrapped
	ran *bool
}

func (s swapsGrant) Run(op core.Op) core.Result {
	*s.ran = true
	return s.Reference.Run(op)
}

func (s swapsGrant) Grant() core.GrantView {
	if !*s.ran {
		return s.grant
	}
	spec := s.grant.Spec()
	spec.FSRead = append(spec.FSRead, "/")
	return must.Grant(spec)
}

// TestGrantImmutableSwappedHandle: a sandbox that hands out core.Grant
// values is judged by their handle (the same handle is the same grant),
// and one that hands out a different core.Grant after the run fails.
func TestGrantImmutableSwappedHandle(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return swapsGrant{wrap(g, w), new(bool)} }), c, 0, GrantImmutable)
	mustContain(t, got[0], "fs_read roots", `"/work/"`, `"/"`)
}

func TestTotalCanFailOnPanic(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("tool", "echo", "hi"),
		op("fs_read", "/work/data.txt"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return panicsOnTools{wrap(g, w)} }), c, 2, Total)
	mustContain(t, got[0], "panicked", "tool runner crashed")
}

// TestTotalOnAnUnlistedKind: a result whose kind SPEC §2 does not list
// is no result: a total finding on that op, as a door's is (SPEC §12),
// never a crash of the harness.
func TestTotalOnAnUnlistedKind(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{
		op("fs_read", "/work/data.txt"),
		op("fs_read", "/work/data.txt"),
	})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return unlistedKind{wrap(g, w)} }), c, 1, Total)
	mustContain(t, got[0], "returned kind 114, which SPEC §2 does not list")
}

// TestTotalCanFailOnHang runs in a synctest bubble, whose clock moves only
// when every goroutine in it waits: the op before the hang, however slow
// a loaded machine makes it, cannot take the timeout.
func TestTotalCanFailOnHang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := testCase(testGrant(roomy), testWorld, []core.Op{
			op("fs_read", "/work/data.txt"),
			op("tool", "echo", "hi"),
		})
		release := make(chan struct{})
		defer close(release)
		got := check(infallible(func(g core.Grant, w core.World) core.Sandbox { return hangsOnTools{wrap(g, w), release} }), c, new(Coverage), Options{Timeout: 100 * time.Millisecond})
		// The detail is checked below, in words.
		want := []Finding{{Invariant: Total, Step: 2, Hang: true}}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Finding{}, "Detail")); diff != "" {
			t.Fatalf("check(hangs on tools) mismatch (-want +got):\n%s", diff)
		}
		mustContain(t, got[0], "did not return", "tool echo hi")
	})
}

// TestModelAgreesOnExtremeClocks: the model computes the wall charge in its
// own way; at the edges of int64 it must still agree with the reference.
func TestModelAgreesOnExtremeClocks(t *testing.T) {
	const maxI, minI = int64(^uint64(0) >> 1), -int64(^uint64(0)>>1) - 1
	for _, clk := range []scenario.TickClock{{Start: minI, Step: maxI}, {Start: -1, Step: 1}, {Start: maxI - 1, Step: 5},
		{Start: 0, Step: maxI}, {Start: maxI, Step: -1}, {Start: 5, Step: minI},
		{Start: maxI, Step: 0}, {Start: maxI, Step: 1}, {Start: maxI - 1, Step: 1}, {Start: 10, Step: maxI / 3}} {
		for _, wall := range []int64{0, 1, maxI - 1, maxI} {
			w := testWorld
			w.Clock = clk
			c := testCase(testGrant(core.Budgets{MaxOps: 10, MaxWall: wall, MaxOutputBytes: 100}), w,
				[]core.Op{op("fs_read", "/work/data.txt"), op("fs_read", "/work/data.txt"), op("tool", "echo", "x")})
			if got := checkInline(core.ReferenceFactory, c, new(Coverage)); len(got) > 0 {
				t.Errorf("clock %+v, max_wall %d: %v", clk, wall, got)
			}
		}
	}
}

// frozenClock is a world whose clock saturates at 2^63−1 and reports the
// saturated value as a tick like any other: what core and the old model,
// sharing one world, both did.
type frozenClock struct{ core.World }

func (w frozenClock) Now() (int64, bool) {
	t, _ := w.World.Now()
	return t, true
}

// TestVerdictCatchesAFrozenClock: SPEC §7 halts max_wall on the op that
// reads a tick past 2^63−1, even with the largest budget; a sandbox that
// reads the saturated tick as a normal one must disagree with the model.
func TestVerdictCatchesAFrozenClock(t *testing.T) {
	w := testWorld
	w.Clock = scenario.TickClock{Start: 0, Step: 1<<63 - 1}
	c := testCase(testGrant(core.Budgets{MaxOps: 10, MaxWall: 1<<63 - 1, MaxOutputBytes: 100}), w,
		[]core.Op{op("fs_read", "/work/data.txt"), op("fs_read", "/work/data.txt")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return core.NewReference(g, frozenClock{w}) }), c, 2, VerdictMatchesModel)
	mustContain(t, got[0], "max_wall")
}

// resolvesTwice is a world whose sandbox resolves every fetched host twice:
// it checked one answer and connects with the other.
type resolvesTwice struct{ core.World }

func (w resolvesTwice) Fetch(host string, _ netip.Addr, path string) (string, bool) {
	a := w.World.Resolve(host)
	return w.World.Fetch(host, a, path)
}

// TestNoInternalEgressCatchesASecondResolve: both answers are public, so no
// internal address is ever fetched, but SPEC §5 resolves exactly once.
func TestNoInternalEgressCatchesASecondResolve(t *testing.T) {
	w := testWorld
	w.DNS = []scenario.DNSRecord{{Host: "api.internal", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.10"), netip.MustParseAddr("203.0.113.11")}}}
	c := testCase(testGrant(roomy), w, []core.Op{op("net_fetch", "api.internal", "/status")})
	got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return core.NewReference(g, resolvesTwice{w}) }), c, 1, NoInternalEgress)
	mustContain(t, got[0], "resolved 2 times for 1 fetch")
}

// TestPermittedEffectOfARead: a max_output_bytes halt on fs_read may keep
// the realpaths of its path (or of what they answered) and the read of
// what they answered, in that order, and nothing else.
func TestPermittedEffectOfARead(t *testing.T) {
	rp := func(p, r string) refworld.Entry { return refworld.Entry{Call: refworld.CallRealpath, Name: p, Arg: r} }
	rd := func(p string) refworld.Entry { return refworld.Entry{Call: refworld.CallRead, Name: p} }
	read := op("fs_read", "/work//a")
	for _, tt := range []struct {
		op      core.Op
		entries []refworld.Entry
		want    int
		reason  string
	}{
		{read, nil, -1, "no effect at all"},
		{read, []refworld.Entry{rp("/work//a", "/work/a"), rd("/work/a")}, -1, "realpath, then the read of its answer"},
		{read, []refworld.Entry{rp("/work//a", "/work/a")}, -1, "the realpath alone"},
		{read, []refworld.Entry{rd("/work//a")}, -1, "a read of the path asked, unresolved: the same file without links"},
		{read, []refworld.Entry{rp("/work//a", "/work/a"), rd("/work//a")}, 1, "a read of another path than the one resolved"},
		{read, []refworld.Entry{rp("/work/b", "/work/b"), rd("/work/b")}, 0, "the realpath of another path"},
		{read, []refworld.Entry{rd("/work/a"), rp("/work//a", "/work/a")}, 0, "out of order"},
		{read, []refworld.Entry{rp("/work//a", "/work/a"), rd("/work/a"), rd("/work/a")}, 2, "a second read"},
		{read, []refworld.Entry{rp("/work//a", "/work/a"), rp("/work//a", "/work/a"), rp("/work/a", "/work/a"), rd("/work/a")}, -1, "the path resolved again, and its answer: lookups, which change nothing"},
		{read, []refworld.Entry{rp("/work//a", "/work/a"), rp("/work/b", "/work/b"), rd("/work/a")}, 1, "a second realpath, of another path"},
		{read, []refworld.Entry{rp("/work//a", "/work/a"), rd("/work/a"), rp("/work//a", "/work/a")}, 2, "a realpath after the read"},
		{op("fs_write", "/work/a", "x"), []refworld.Entry{rp("/work/a", "/work/a")}, 0, "a write produces no bytes, so permits nothing"},
		{op("tool", "echo", "x"), []refworld.Entry{rp("echo", "echo")}, 0, "a tool op resolves no path"},
	} {
		if got := outsidePermittedEffect(tt.op, tt.entries); got != tt.want {
			t.Errorf("%s: outsidePermittedEffect(%s, %v) = %d, want %d", tt.reason, formatOp(tt.op), tt.entries, got, tt.want)
		}
	}
}

// TestPermittedEffectOfAFetch: a max_output_bytes halt on net_fetch may
// keep what an allowed fetch may do, resolves and fetches (a client asks
// twice for one answer, robots.txt then the page; follows a redirect;
// asks a relay of its own), which confinement and no-internal-egress
// judge, and nothing else: no file, no tool.
func TestPermittedEffectOfAFetch(t *testing.T) {
	a := netip.MustParseAddr("203.0.113.10")
	res := func(h string) refworld.Entry { return refworld.Entry{Call: refworld.CallResolve, Name: h, Addr: a} }
	fetch := func(h, p string) refworld.Entry {
		return refworld.Entry{Call: refworld.CallFetch, Name: h, Addr: a, Arg: p}
	}
	big := op("net_fetch", "a.test", "/big")
	for _, tt := range []struct {
		entries []refworld.Entry
		want    int
		reason  string
	}{
		{nil, -1, "no effect at all"},
		{[]refworld.Entry{res("a.test"), fetch("a.test", "/big")}, -1, "the resolve, then the fetch"},
		{[]refworld.Entry{res("a.test"), fetch("a.test", "/robots.txt"), fetch("a.test", "/big")}, -1, "robots.txt, then the page"},
		{[]refworld.Entry{res("a.test"), fetch("a.test", "/big"), res("b.test"), fetch("b.test", "/")}, -1, "another host: a redirect followed, or a relay"},
		{[]refworld.Entry{res("a.test"), fetch("a.test", "/big"), {Call: refworld.CallWrite, Name: "/work/a"}}, 2, "a write"},
		{[]refworld.Entry{{Call: refworld.CallTool, Name: "a.test"}}, 0, "a tool call named as the host"},
	} {
		if got := outsidePermittedEffect(big, tt.entries); got != tt.want {
			t.Errorf("%s: outsidePermittedEffect(%s, %v) = %d, want %d", tt.reason, formatOp(big), tt.entries, got, tt.want)
		}
	}
}

// asksTwice is a world whose sandbox asks each fetched host for
// /robots.txt before the page, from the one address it resolved.
type asksTwice struct{ core.World }

func (w asksTwice) Fetch(host string, a netip.Addr, path string) (string, bool) {
	w.World.Fetch(host, a, "/robots.txt")
	return w.World.Fetch(host, a, path)
}

// logsFetches is a world whose sandbox writes a log line, under its write
// root, for each fetch.
type logsFetches struct{ core.World }

func (w logsFetches) Fetch(host string, a netip.Addr, path string) (string, bool) {
	w.World.Write("/work/out/log", host+path)
	return w.World.Fetch(host, a, path)
}

// TestOutputHaltKeepsOnlyTheFetch: a fetch halted by max_output_bytes
// may have asked its host twice, as an allowed one may; one that also
// wrote to the world, which an allowed fetch may do unjudged, is a
// no-effect-on-denial finding at the halt.
func TestOutputHaltKeepsOnlyTheFetch(t *testing.T) {
	c := testCase(testGrant(core.Budgets{MaxOps: 100, MaxWall: 1000, MaxOutputBytes: 3}), testWorld, []core.Op{
		op("net_fetch", "api.internal", "/status"),
		op("net_fetch", "api.internal", "/status"),
	})
	world := func(wrap func(core.World) core.World) core.Factory {
		return infallible(func(g core.Grant, w core.World) core.Sandbox { return core.NewReference(g, wrap(w)) })
	}
	if got := check(world(func(w core.World) core.World { return asksTwice{w} }), c, new(Coverage), Options{}); len(got) != 0 {
		t.Errorf("asking for robots.txt first: findings %v, want none", lines(got))
	}
	got := canFail(t, world(func(w core.World) core.World { return logsFetches{w} }), c, 2, NoEffectOnDenial)
	mustContain(t, got[0], "halted with max_output_bytes", "/work/out/log")
}

// TestEgressProblem: a fetch must use the address the last resolve of its
// host answered in the op, and an op may not resolve more often than it
// fetches; asking twice from the one address resolved (HEAD then GET,
// robots.txt then the page) is neither.
// TestGrantedOnTheWire: a host the journal names is granted byte for
// byte, or, an IP literal, as a literal of the same address in any
// spelling (an IPv6 literal with or without the brackets HTTP writes it
// in), unless either spelling has a dns line of its own, which makes it a
// name; nothing else makes a name granted.
func TestGrantedOnTheWire(t *testing.T) {
	g := must.Grant(core.GrantSpec{NetHosts: []string{"2001:db8::1", "[2001:db8::2]", "a.test", "0x7f.1", "::ffff:203.0.113.9", "198.51.100.5"}})
	named := func(h string) bool { return h == "0xcb.0.113.9" || h == "198.51.100.5" || h == "[2001:db8::1]" }
	for host, want := range map[string]bool{
		"2001:db8::1": true, "2001:db8::2": true, "[2001:db8::2]": true, "a.test": true,
		"127.0.0.1": true, "[::ffff:7f00:1]": true, "2130706433": true, "203.0.113.9": true, "[::ffff:cb00:7109]": true,
		"198.51.100.5": true, // granted byte for byte, line or not
		"[a.test]":     false, "2001:db8::3": false, "[2001:db8::3]": false, "[2001:db8::1": false, "A.test": false,
		"127.0.0.2": false, "203.0.113.1": false, "a.test.": false,
		"0xcb.0.113.9":  false, // a dns line of its own: a name, whatever its address
		"[2001:db8::1]": false, // likewise
		"0xc6.51.100.5": false, // the granted spelling has a line: its address is not the literal's
	} {
		if got := grantedOnTheWire(g, host, named); got != want {
			t.Errorf("grantedOnTheWire(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestEgressProblem(t *testing.T) {
	a, b := netip.MustParseAddr("203.0.113.10"), netip.MustParseAddr("203.0.113.11")
	inside := netip.MustParseAddr("10.0.0.1")
	res := func(h string, x netip.Addr) refworld.Entry {
		return refworld.Entry{Call: refworld.CallResolve, Name: h, Addr: x}
	}
	fetch := func(h string, x netip.Addr, p string) refworld.Entry {
		return refworld.Entry{Call: refworld.CallFetch, Name: h, Addr: x, Arg: p}
	}
	for _, tc := range []struct {
		name    string
		entries []refworld.Entry
		want    string // a part of the problem; "" for none
	}{
		{"one resolve, one fetch", []refworld.Entry{res("h", a), fetch("h", a, "/")}, ""},
		{"one resolve, two fetches from it", []refworld.Entry{res("h", a), fetch("h", a, "/robots.txt"), fetch("h", a, "/")}, ""},
		{"a resolve for each fetch", []refworld.Entry{res("h", a), fetch("h", a, "/"), res("h", b), fetch("h", b, "/")}, ""},
		{"no resolve", []refworld.Entry{fetch("h", a, "/")}, "without resolving"},
		{"another host's resolve", []refworld.Entry{res("g", a), fetch("h", a, "/")}, "without resolving"},
		// (internal/campaign tells a DNS cache's findings by these words.)
		{"another answer", []refworld.Entry{res("h", a), fetch("h", b, "/")}, "the last resolve of \"h\" answered 203.0.113.10: the address checked is not the address used"},
		{"a second fetch after a new answer", []refworld.Entry{res("h", a), fetch("h", a, "/"), res("h", b), fetch("h", a, "/")}, "answered 203.0.113.11"},
		{"checked one answer, fetched the next", []refworld.Entry{res("h", a), res("h", b), fetch("h", b, "/")}, "resolved 2 times for 1 fetch"},
		{"checked one answer, fetched the next twice", []refworld.Entry{res("h", a), res("h", b), fetch("h", b, "/"), fetch("h", b, "/")}, "resolved 2 times for 2 fetch"},
		{"names compared as SPEC §6 does", []refworld.Entry{res("b.test", a), fetch("B.test.", a, "/")}, ""},
		// A bracketed literal is another name to the resolver: it may have
		// a dns line of its own.
		{"a literal resolved in brackets, fetched without", []refworld.Entry{res("[2001:db8::7]", a), fetch("2001:db8::7", a, "/")}, "without resolving"},
		{"internal", []refworld.Entry{res("h", netip.MustParseAddr("10.0.0.1")), fetch("h", netip.MustParseAddr("10.0.0.1"), "/")}, "an internal address"},
		{"a resolve and no fetch", []refworld.Entry{res("h", a)}, ""},
		// A follower checks a redirect's Location and refuses it: the host
		// it looked up is never fetched, so no answer went unchecked.
		{"a redirect's host looked up and refused", []refworld.Entry{res("h", a), fetch("h", a, "/go"), res("g", b)}, ""},
		{"looked up twice and refused", []refworld.Entry{res("h", a), fetch("h", a, "/go"), res("g", b), res("g", b)}, ""},
		{"a redirect followed, each host once", []refworld.Entry{res("h", a), fetch("h", a, "/go"), res("g", b), fetch("g", b, "/x")}, ""},
		{"a second lookup of the host fetched, after it", []refworld.Entry{res("h", a), fetch("h", a, "/"), res("h", b)}, "resolved 2 times for 1 fetch of \"h\""},
		// A follower looks the host of a Location on the same host up for
		// the next hop, and refuses its answer: no fetch used it. A
		// lookup before the fetch still counts.
		{"a redirect's next hop on the host looked up and refused", []refworld.Entry{res("h", a), fetch("h", a, "/go"), res("h", inside)}, ""},
		{"a redirect's next hop public and left", []refworld.Entry{res("h", a), fetch("h", a, "/go"), res("h", b)}, "resolved 2 times for 1 fetch of \"h\""},
		{"a redirect off the host, then the host looked up", []refworld.Entry{res("h", a), fetch("h", a, "/off"), res("h", inside)}, "resolved 2 times for 1 fetch of \"h\""},
		{"twice looked up, then a redirect's next hop", []refworld.Entry{res("h", a), res("h", b), fetch("h", b, "/go"), res("h", inside)}, "resolved 2 times for 1 fetch of \"h\""},
		{"a redirect's next hop on the host fetched", []refworld.Entry{res("h", a), fetch("h", a, "/go"), res("h", b), fetch("h", b, "/x")}, ""},
		{"the followed host looked up twice", []refworld.Entry{res("h", a), fetch("h", a, "/go"), res("g", a), res("g", b), fetch("g", b, "/x")}, "resolved 2 times for 1 fetch of \"g\""},
		// Lookups that all answered one address leave no other to have
		// been checked: a guard that checks each answer and pins the last
		// (read-website-fast looks a host up four times).
		{"looked up four times, one answer", []refworld.Entry{res("h", a), res("h", a), res("h", a), res("h", a), fetch("h", a, "/")}, ""},
		// Go's dialer dials an IPv4-mapped answer as the IPv4 address it
		// carries: the same address.
		{"a mapped answer dialled as IPv4", []refworld.Entry{res("h", netip.MustParseAddr("::ffff:203.0.113.10")), fetch("h", a, "/")}, ""},
		{"a mapped answer, another address dialled", []refworld.Entry{res("h", netip.MustParseAddr("::ffff:203.0.113.10")), fetch("h", b, "/")}, "the address checked is not the address used"},
		{"answers mapped and not, one address", []refworld.Entry{res("h", a), res("h", netip.MustParseAddr("::ffff:203.0.113.10")), fetch("h", a, "/")}, ""},
		{"looked up again after the fetch, the same answer", []refworld.Entry{res("h", a), fetch("h", a, "/"), res("h", a)}, ""},
	} {
		got := egressProblem(tc.entries, func(_, p string) bool { return strings.HasPrefix(p, "/go") })
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestReplayDataWords: two runs whose results differ in their data alone,
// of one length, quote the data: "ok with 5 bytes" twice said nothing.
func TestReplayDataWords(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_read", "/work/data.txt")})
	built := 0
	f := func(g core.Grant, w core.World) (core.Sandbox, error) {
		built++
		return respells{wrap(g, w), built > 1}, nil
	}
	got := check(f, c, new(Coverage), Options{Timeout: time.Second})
	if len(got) != 1 || got[0].Invariant != ReplayDeterministic || !strings.Contains(got[0].Detail, `first ok with "hello"`) || !strings.Contains(got[0].Detail, `then ok with "HELLO"`) {
		t.Errorf("%s\nwant one %s quoting both data", lines(got), ReplayDeterministic)
	}
}

// respells answers the replay's reads in upper case.
type respells struct {
	wrapped
	replay bool
}

func (s respells) Run(op core.Op) core.Result {
	r := s.Reference.Run(op)
	if s.replay {
		r.Data = strings.ToUpper(r.Data)
	}
	return r
}

// TestVerdictOnAWriteThatLeftNothing: an allowed write answered ok that
// wrote nothing, or wrote its bytes elsewhere under the root, leaves the
// file the model writes without them (SPEC §8); where a door may answer
// with the model's ok in its sandbox's place (SetStandIns), its journal
// alone is judged.
func TestVerdictOnAWriteThatLeftNothing(t *testing.T) {
	c := testCase(testGrant(roomy), testWorld, []core.Op{op("fs_write", "/work/out/a", "hello")})
	for _, elsewhere := range []bool{false, true} {
		got := canFail(t, infallible(func(g core.Grant, w core.World) core.Sandbox { return writesNothing{wrap(g, w), elsewhere} }), c, 1, VerdictMatchesModel)
		mustContain(t, got[0], `returned ok as the model does, but left "/work/out/a" empty or with no file where the model of SPEC §5 writes "hello"`)
	}
	standsIn := func(g core.Grant, w core.World) (core.Sandbox, error) {
		w.(*refworld.World).SetStandIns()
		return writesNothing{wrap(g, w), false}, nil
	}
	if got := check(standsIn, c, new(Coverage), Options{}); len(got) != 0 {
		t.Errorf("a door's ok standing in for its sandbox's answer was judged by the world: %v", got)
	}
}

// TestGrantImmutableInAnyOrder: a view that reads the same entries in
// another order each time (built from a map's keys) holds the same
// authority; one whose entries change is still caught.
func TestGrantImmutableInAnyOrder(t *testing.T) {
	g := testGrant(roomy).Spec()
	g.Tools = []string{"echo", "summarize", "search", "dump"}
	c := testCase(must.Grant(g), testWorld, []core.Op{op("tool", "echo", "hi")})
	if got := check(infallible(func(g core.Grant, w core.World) core.Sandbox { return rotatedViews{wrap(g, w), new(int)} }), c, new(Coverage), Options{}); len(got) != 0 {
		t.Fatalf("a sandbox reading its tools in another order each time fails grant-immutable:\n%s", lines(got))
	}
	if !sameEntries([]string{"a", "b", "b"}, []string{"b", "a", "b"}) || sameEntries([]string{"a", "b", "b"}, []string{"a", "a", "b"}) || sameEntries([]string{"a"}, []string{"a", "a"}) {
		t.Error("sameEntries does not compare entries with their counts")
	}
	if got := changedAuthority([]string{"a", "b"}, []string{"a", "a"}); got != "authority changed" {
		t.Errorf("a list that lost an entry is %q", got)
	}
}
