package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// requireNamespaces skips the test, with the reason, where this machine
// cannot make network namespaces.
func requireNamespaces(t *testing.T) {
	t.Helper()
	if err := namespaces(); err != nil {
		t.Skip(err)
	}
}

// ownFetch is a world with routes: b.test is public, a.test resolves to
// an internal address.
const ownFetch = `grant net a.test b.test
route a.test /x secret
route b.test /y hello
dns a.test 10.0.0.7

net_fetch b.test /y => ok hello
net_fetch a.test /x => egress_internal
`

func caseOf(t *testing.T, text string) judge.Case {
	t.Helper()
	sc, err := scenario.Parse("own.sbx", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	c, err := judge.NewCase(sc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkExec(t *testing.T, command string, text string) []oracle.Finding {
	t.Helper()
	start, err := Sessions(command)
	if err != nil {
		t.Fatal(err)
	}
	f, end, _ := start()
	defer end()
	return judge.Check(f, caseOf(t, text), nil, judge.Options{Timeout: patience})
}

func TestExecChildFetchingForItselfIsJudged(t *testing.T) {
	requireNamespaces(t)
	if fs := checkExec(t, roleCommand("ownhttp", "checked"), ownFetch); len(fs) != 0 {
		t.Errorf("a child that checks the address it connects to: findings %v, want none", fs)
	}
	if fs := checkExec(t, roleCommand("ownhttp", "byname"), ownFetch); !egressTo(fs, "10.0.0.7") {
		t.Errorf("a child that dials a second resolution: findings %v, want no-internal-egress to 10.0.0.7", fs)
	}
}

// egressTo reports whether fs holds a no-internal-egress finding that
// names addr.
func egressTo(fs []oracle.Finding, addr string) bool {
	return slices.ContainsFunc(fs, func(f oracle.Finding) bool {
		return f.Invariant == oracle.NoInternalEgress && strings.Contains(f.Detail, addr)
	})
}

// opened opens a sandbox over a fresh world of spec and returns the
// session's child.
func opened(t *testing.T, s *session, spec scenario.WorldSpec) *child {
	t.Helper()
	sb, err := s.open(must.Grant(core.GrantSpec{}), refworld.New(spec))
	if err != nil {
		t.Fatal(err)
	}
	return sb.(*sandbox).c
}

// routeless is what minimizing a finding of a child that fetches for
// itself leaves: a granted host and the fetch, no route, no dns line.
const routeless = `grant net 127.0.0.2

net_fetch 127.0.0.2 /latest/meta-data => egress_internal
`

// TestAChildFetchesInANamespaceWhateverTheWorld: a child that dials the
// host it is asked for, with no check, is judged on the connection it
// opens even in a world without routes or dns lines (a reproducer), so it
// never reaches the machine's own network; and one session's child serves
// worlds with routes and without.
func TestAChildFetchesInANamespaceWhateverTheWorld(t *testing.T) {
	requireNamespaces(t)
	if fs := checkExec(t, roleCommand("ownhttp", "byname"), routeless); !egressTo(fs, "127.0.0.2") {
		t.Errorf("a child that dials an internal address in a world without routes: findings %v, want no-internal-egress to 127.0.0.2", fs)
	}
	argv, _ := SplitWords(roleCommand("serve"))
	s := &session{argv: argv}
	defer s.end()
	first := opened(t, s, scenario.WorldSpec{})
	if first.bind == nil {
		t.Fatal("a world without routes got a child outside a namespace")
	}
	routes := scenario.WorldSpec{Routes: []scenario.Route{{Host: "a.test", Path: "/", Body: "x"}}}
	if again := opened(t, s, routes); again != first {
		t.Error("a world with routes replaced the session's child")
	}
}

func TestWithoutNamespacesTheDoorSaysSoOnce(t *testing.T) {
	defer func(n func() error, w io.Writer) { namespaces, warnings, warnOnce = n, w, sync.Once{} }(namespaces, warnings)
	namespaces = func() error { return fmt.Errorf("%w: not here (test)", netns.ErrUnavailable) }
	var said bytes.Buffer
	warnings, warnOnce = &said, sync.Once{}
	for range 2 {
		fs := checkExec(t, roleCommand("ownhttp", "checked"), ownFetch)
		// Outside a namespace the child is not told it may fetch for real.
		if len(fs) == 0 || !strings.Contains(fs[0].Detail, netnsEnv+"=1 is not set") {
			t.Errorf("findings %v, want the child's refusal to fetch outside a namespace", fs)
		}
	}
	lines := strings.Split(strings.TrimSpace(said.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "not observed") || !strings.Contains(lines[0], "not here (test)") {
		t.Errorf("warnings %q, want one line saying why connections are not observed", said.String())
	}
	if !errors.Is(namespaces(), netns.ErrUnavailable) {
		t.Fatal("the override did not hold")
	}
}

// benchWorlds are a child outside a network namespace, as where the
// machine cannot make one, and one inside, over a world with routes.
var benchWorlds = []struct {
	name  string
	noNet bool
	world scenario.WorldSpec
}{
	{"plain", true, scenario.WorldSpec{}},
	{"netns", false, scenario.WorldSpec{Routes: []scenario.Route{{Host: "a.test", Path: "/", Body: "x"}}}},
}

// BenchmarkExecOp is one op of a Go child (role serve) through the exec:
// door, outside a network namespace (as where none can be made) and inside
// one (with routes): the second adds what the binding does per op.
//
//	go test -run '^$' -bench ExecOp ./internal/proc
func BenchmarkExecOp(b *testing.B) {
	for _, tc := range benchWorlds {
		b.Run(tc.name, func(b *testing.B) {
			if tc.name == "netns" && namespaces() != nil {
				b.Skip(namespaces())
			}
			argv, _ := SplitWords(roleCommand("serve"))
			s := &session{argv: argv, noNet: tc.noNet}
			defer s.end()
			sb, err := s.open(must.Grant(core.GrantSpec{FSRead: []string{"/work/"}}), refworld.New(tc.world))
			if err != nil {
				b.Fatal(err)
			}
			op := core.Op{Kind: "fs_read", Args: []string{"/work/a"}}
			for b.Loop() {
				sb.Run(op)
			}
		})
	}
}

// BenchmarkExecStart is a session's first scenario: its child started,
// initialized and its sandbox opened, outside and inside a namespace.
func BenchmarkExecStart(b *testing.B) {
	for _, tc := range benchWorlds {
		b.Run(tc.name, func(b *testing.B) {
			if tc.name == "netns" && namespaces() != nil {
				b.Skip(namespaces())
			}
			argv, _ := SplitWords(roleCommand("serve"))
			for b.Loop() {
				s := &session{argv: argv, noNet: tc.noNet}
				if _, err := s.open(must.Grant(core.GrantSpec{}), refworld.New(tc.world)); err != nil {
					b.Fatal(err)
				}
				s.end()
			}
		})
	}
}

// stricterFetch: b.test answers in the documentation range the strict
// child refuses, and the model allows; c.test's body, fetched twice, then
// passes the output budget the model has charged b.test's against.
const stricterFetch = `grant net b.test c.test
budget output 8
route b.test /y hello
route c.test /z wor
dns b.test 203.0.113.5
dns c.test 198.51.100.7

net_fetch b.test /y => ok hello
net_fetch c.test /z => ok wor
net_fetch c.test /z => max_output_bytes
`

// TestExecChildDeclaredStricter: a child that declares its refusals of
// fetches stricter (initialize's "stricter") has one of a fetch the model
// allows counted under its reason, not judged, and the rest of the
// scenario answered as the model: judged, the child, which never charged
// the refused body, would be wrong to let c.test's second through. It is
// still asked up to the op the model halts on, and what it does is
// journaled (its lookups of c.test). The same child that does not declare it is a
// verdict-matches-model finding there.
func TestExecChildDeclaredStricter(t *testing.T) {
	requireNamespaces(t)
	counted, err := CountedSessions(roleCommand("ownhttp", "strict"))
	if err != nil {
		t.Fatal(err)
	}
	f, end, tally, err := counted()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	var second, third []refworld.Entry
	observe := func(r judge.StepReport) {
		switch r.Step {
		case 2:
			second = r.Entries
		case 3:
			third = r.Entries
		}
	}
	if fs := judge.Check(f, caseOf(t, stricterFetch), nil, judge.Options{Timeout: patience, Observe: observe}); len(fs) != 0 {
		t.Errorf("a declared stricter child: findings %v, want none", fs)
	}
	if got := tally(); got.Stricter[door.ReasonDocumentation] != 1 || len(got.Stricter) != 1 || got.Modelled != 2 {
		t.Errorf("counted stricter %v and %d ops answered as the model, want 1 documentation-address and 2 (the run's, not the replay's)", got.Stricter, got.Modelled)
	}
	lookup := func(e refworld.Entry) bool { return e.Call == refworld.CallResolve && e.Name == "c.test" }
	if !slices.ContainsFunc(second, lookup) || !slices.ContainsFunc(third, lookup) {
		t.Errorf("steps 2 and 3's journals %v and %v, want the child's lookup of c.test in each: it is asked after its stricter refusal, up to the op the model halts on", second, third)
	}
	// Once the model halts, the child, which never charged the refused
	// body, is not asked: its read would be judged against the halt.
	const halts = "grant net b.test\ngrant fs_read /d\nbudget output 5\nfile /d/a x\nroute b.test /y hello\ndns b.test 203.0.113.5\n\n" +
		"net_fetch b.test /y => ok hello\nfs_read /d/a => max_output_bytes\nfs_read /d/a => max_output_bytes\n"
	if fs := judge.Check(f, caseOf(t, halts), nil, judge.Options{Timeout: patience}); len(fs) != 0 {
		t.Errorf("a declared stricter child, the model halting after its refusal: findings %v, want none", fs)
	}
	fs := checkExec(t, roleCommand("ownhttp", "strict-undeclared"), stricterFetch)
	if len(fs) == 0 || fs[0].Invariant != oracle.VerdictMatchesModel || fs[0].Step != 1 {
		t.Errorf("the child undeclared: findings %v, want verdict-matches-model at step 1", fs)
	}
}

// TestExecChildCutAnswersWrites: once a child that declared stricter
// refusals has refused a fetch the model allows, the door answers every op
// as the model does, an ok write included, and tells the world so: what
// the child left in the world is not judged against the model's ok (the
// child's budgets have parted from the model's). Before the cut, its own
// answers are (TestExecWriteThatLeftNothing).
func TestExecChildCutAnswersWrites(t *testing.T) {
	requireNamespaces(t)
	const cutThenWrite = "grant net b.test\ngrant fs_write /d\nfile /d/a old\nroute b.test /y hello\ndns b.test 203.0.113.5\n\n" +
		"net_fetch b.test /y => ok hello\nfs_write /d/a new => ok\n"
	if fs := checkExec(t, roleCommand("ownhttp", "strict-dropwrites"), cutThenWrite); len(fs) != 0 {
		t.Errorf("a declared stricter child, cut before an ok write it dropped: findings %v, want none", fs)
	}
}
