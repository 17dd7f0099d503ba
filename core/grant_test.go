package core_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// newGrantNoPanic calls NewGrant and turns a panic into an error, so a table
// case that panics fails instead of aborting the test binary.
func newGrantNoPanic(s core.GrantSpec) (g core.Grant, panicked any, err error) {
	defer func() { panicked = recover() }()
	g, err = core.NewGrant(s)
	return g, nil, err
}

// accessors reads a grant back through its accessors, one by one, so a
// test can compare it with the GrantSpec it was built from. (Grant's fields
// are unexported: cmp cannot look inside it.)
func accessors(g core.Grant) core.GrantSpec {
	return core.GrantSpec{FSRead: g.FSRead(), FSWrite: g.FSWrite(), NetHosts: g.NetHosts(), Tools: g.Tools(), Budgets: g.Budgets()}
}

// validSpec is a grant every invalid case below differs from in one place.
func validSpec() core.GrantSpec {
	return core.GrantSpec{
		FSRead:   []string{"/work/"},
		FSWrite:  []string{"/work/out/"},
		NetHosts: []string{"api.internal"},
		Tools:    []string{"echo"},
		Budgets:  core.Budgets{MaxOps: 10, MaxWall: 10, MaxOutputBytes: 10},
	}
}

func TestNewGrantInvalid(t *testing.T) {
	type tc struct {
		name   string
		spec   core.GrantSpec
		reason string
	}
	var tests []tc
	add := func(name, reason string, edit func(*core.GrantSpec)) {
		s := validSpec()
		edit(&s)
		tests = append(tests, tc{name, s, reason})
	}
	// Negative budgets, each on its own.
	for _, n := range []int64{-1, math.MinInt64} {
		add(fmt.Sprintf("max_ops %d", n), "a negative budget", func(s *core.GrantSpec) { s.MaxOps = n })
		add(fmt.Sprintf("max_wall %d", n), "a negative budget", func(s *core.GrantSpec) { s.MaxWall = n })
		add(fmt.Sprintf("max_output_bytes %d", n), "a negative budget", func(s *core.GrantSpec) { s.MaxOutputBytes = n })
	}
	// Roots, for both fs_read and fs_write.
	badRoots := []struct{ root, reason string }{
		{"", "empty: not absolute"},
		{"work/", "not absolute"},
		{"./work", "not absolute"},
		{`\work\`, "not absolute ('\\' is no root)"},
		{" /work/", "not absolute (leading space)"},
		{"/work/..", "a '..' segment"},
		{"/work/../etc", "a '..' segment"},
		{"/..", "a '..' segment"},
		{`/work/..\x`, `a '..' segment ended by '\'`},
		{"/work\x00", "a NUL byte"},
		{"/\x00/work", "a NUL byte"},
	}
	for _, r := range badRoots {
		add("fs_read root "+fmt.Sprintf("%q", r.root), r.reason, func(s *core.GrantSpec) { s.FSRead = []string{r.root} })
		add("fs_write root "+fmt.Sprintf("%q", r.root), r.reason, func(s *core.GrantSpec) { s.FSWrite = []string{r.root} })
	}
	add("one bad root among good ones", "every root is checked", func(s *core.GrantSpec) {
		s.FSRead = []string{"/work/", "/tmp/", "rel"}
	})
	// Hosts and tools.
	badNames := []struct{ name, reason string }{
		{"", "empty"},
		{" ", "white space"},
		{"api internal", "a space"},
		{"api.internal ", "a trailing space"},
		{"\tapi", "a tab"},
		{"api\n", "a newline"},
		{"api\r", "a carriage return"},
		{"api\u00a0x", "NBSP is white space"},
		{"api\u3000x", "ideographic space is white space"},
		{"api\x00", "a NUL control byte"},
		{"api\x01", "a control byte"},
		{"api\x1b[0m", "an escape control byte"},
		{"api\x7f", "DEL control byte"},
		{"api/x", "a '/'"},
		{"user@api", "an '@'"},
		{"api@evil", "an '@'"},
		{"api?x", "a '?'"},
		{"api#x", "a '#'"},
	}
	for _, n := range badNames {
		add("host "+fmt.Sprintf("%q", n.name), n.reason, func(s *core.GrantSpec) { s.NetHosts = []string{n.name} })
		add("tool "+fmt.Sprintf("%q", n.name), n.reason, func(s *core.GrantSpec) { s.Tools = []string{n.name} })
	}
	add("one bad host among good ones", "every host is checked", func(s *core.GrantSpec) {
		s.NetHosts = []string{"a.example", "b example"}
	})

	for _, tt := range tests {
		g, p, err := newGrantNoPanic(tt.spec)
		switch {
		case p != nil:
			t.Errorf("NewGrant(%s) panicked: %v; want an error (%s)", tt.name, p, tt.reason)
		case err == nil:
			t.Errorf("NewGrant(%s) = %+v, nil; want an error: %s", tt.name, g, tt.reason)
		case !errors.Is(err, core.ErrInvalidGrant):
			t.Errorf("NewGrant(%s) error %q does not unwrap to ErrInvalidGrant (%s)", tt.name, err, tt.reason)
		}
	}
}

func TestNewGrantValid(t *testing.T) {
	tests := []struct {
		spec   core.GrantSpec
		reason string
	}{
		{core.GrantSpec{}, "nothing granted, budgets of 0"},
		{validSpec(), "the usual grant"},
		{core.GrantSpec{FSRead: []string{"/"}}, "the root directory"},
		{core.GrantSpec{FSRead: []string{"/work/..hidden", "/work/te..st", "/work/..."}}, "dots that are not a '..' segment"},
		{core.GrantSpec{FSWrite: []string{"/a b/", "/work//x/./"}}, "spaces and unclean forms are fine in roots"},
		{core.GrantSpec{FSRead: []string{"/work/%2e%2e"}}, "percent-encodings are literal bytes"},
		{core.GrantSpec{NetHosts: []string{"127.0.0.1", "::1", "[::1]", "api.internal:8080", "xn--bcher-kva.example", "bücher.example", "API.Internal."}},
			"literals, ports, punycode, non-ASCII letters, case and trailing dots are allowed"},
		{core.GrantSpec{Tools: []string{"summarize", "my-tool_2", "ECHO", "über"}}, "ordinary tool names"},
		{core.GrantSpec{Budgets: core.Budgets{MaxOps: math.MaxInt64, MaxWall: math.MaxInt64, MaxOutputBytes: math.MaxInt64}}, "the largest budgets"},
	}
	for _, tt := range tests {
		g, p, err := newGrantNoPanic(tt.spec)
		if p != nil || err != nil {
			t.Errorf("NewGrant(%+v) = %v, panic %v; want a grant: %s", tt.spec, err, p, tt.reason)
			continue
		}
		// The lists come back as given; an empty list and nil are the same.
		if diff := cmp.Diff(tt.spec, accessors(g), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("NewGrant(%+v) accessors (%s) mismatch (-want +got):\n%s", tt.spec, tt.reason, diff)
		}
	}
}

func TestZeroGrantGrantsNothing(t *testing.T) {
	var g core.Grant
	if g.MayRead("/") || g.MayRead("/work/x") || g.MayWrite("/work/x") || g.MayFetch("api.internal") || g.MayCall("echo") {
		t.Errorf("the zero Grant allows something")
	}
	if g.Budgets() != (core.Budgets{}) {
		t.Errorf("zero Grant budgets = %+v, want all 0", g.Budgets())
	}
}

func TestGrantDecisions(t *testing.T) {
	g := must.Grant(validSpec())
	tests := []struct {
		got, want bool
		what      string
	}{
		{g.MayRead("/work/a"), true, "read below the fs_read root"},
		{g.MayRead("/work/../etc/passwd"), false, "read with a '..' segment"},
		{g.MayRead("/work/x/.."), false, "traversal is refused even when Clean stays inside"},
		{g.MayRead("/workshop/a"), false, "read of a prefix sibling"},
		{g.MayRead("/etc/passwd"), false, "read outside"},
		{g.MayWrite("/work/out/r"), true, "write below the fs_write root"},
		{g.MayWrite("/work/a"), false, "write below fs_read only"},
		{g.MayFetch("api.internal"), true, "the granted host"},
		{g.MayFetch("API.internal"), false, "hosts match byte for byte"},
		{g.MayFetch("api.internal."), false, "hosts match byte for byte (trailing dot)"},
		{g.MayCall("echo"), true, "the granted tool"},
		{g.MayCall("Echo"), false, "tools match byte for byte"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.what, tt.got, tt.want)
		}
	}
}

// TestGrantCannotWiden mutates everything the grant handed out, and the spec
// it was built from, and checks that the grant reads the same and decides
// the same (SPEC §3, §8 grant-immutable).
func TestGrantCannotWiden(t *testing.T) {
	// Slices with spare capacity, so appending to them writes into the
	// backing array a careless constructor would share.
	spec := core.GrantSpec{
		FSRead:   append(make([]string, 0, 8), "/work/"),
		FSWrite:  append(make([]string, 0, 8), "/work/out/"),
		NetHosts: append(make([]string, 0, 8), "api.internal"),
		Tools:    append(make([]string, 0, 8), "echo"),
		Budgets:  core.Budgets{MaxOps: 5, MaxWall: 5, MaxOutputBytes: 5},
	}
	g, err := core.NewGrant(spec)
	if err != nil {
		t.Fatal(err)
	}
	want := core.GrantSpec{
		FSRead: []string{"/work/"}, FSWrite: []string{"/work/out/"}, NetHosts: []string{"api.internal"}, Tools: []string{"echo"},
		Budgets: core.Budgets{MaxOps: 5, MaxWall: 5, MaxOutputBytes: 5},
	}
	check := func(stage string) {
		t.Helper()
		if diff := cmp.Diff(want, accessors(g)); diff != "" {
			t.Errorf("after %s: accessors mismatch (-want +got):\n%s", stage, diff)
		}
		for _, d := range []struct {
			allowed bool
			what    string
		}{
			{g.MayRead("/etc/passwd"), "MayRead(/etc/passwd)"},
			{g.MayRead("/proc/self/environ"), "MayRead(/proc/self/environ)"},
			{g.MayWrite("/work/a"), "MayWrite(/work/a)"},
			{g.MayWrite("/etc/passwd"), "MayWrite(/etc/passwd)"},
			{g.MayFetch("evil.com"), "MayFetch(evil.com)"},
			{g.MayFetch("169.254.169.254"), "MayFetch(169.254.169.254)"},
			{g.MayCall("exec"), "MayCall(exec)"},
			{g.MayCall("summarize"), "MayCall(summarize)"},
		} {
			if d.allowed {
				t.Errorf("after %s: %s widened to true", stage, d.what)
			}
		}
		if !g.MayRead("/work/a") || !g.MayWrite("/work/out/a") || !g.MayFetch("api.internal") || !g.MayCall("echo") {
			t.Errorf("after %s: a granted decision changed", stage)
		}
	}
	check("construction")

	// Mutate every slice the accessors hand out: overwrite, then append.
	for _, get := range []func() []string{g.FSRead, g.FSWrite, g.NetHosts, g.Tools} {
		s := get()
		for i := range s {
			s[i] = "/"
		}
		s = append(s, "/", "evil.com", "exec", "summarize", "169.254.169.254", "/etc/")
		for i := range s[:cap(s)] {
			s[:cap(s)][i] = "/"
		}
	}
	b := g.Budgets()
	b.MaxOps, b.MaxWall, b.MaxOutputBytes = math.MaxInt64, math.MaxInt64, math.MaxInt64
	check("mutating the accessors' results")

	// The same through Spec's lists, written past their length into any spare
	// capacity a Spec that shared its lists, or one array for all four, would
	// expose.
	gs := g.Spec()
	if diff := cmp.Diff(want, gs); diff != "" {
		t.Errorf("Spec() mismatch (-want +got):\n%s", diff)
	}
	for _, s := range [][]string{gs.FSRead, gs.FSWrite, gs.NetHosts, gs.Tools} {
		for i := range s[:cap(s)] {
			s[:cap(s)][i] = "/"
		}
	}
	gs.FSRead = append(gs.FSRead, "/etc/")
	check("mutating Spec's lists")

	// Mutate the spec the grant was built from: overwrite, then append into
	// the spare capacity.
	spec.FSRead[0], spec.FSWrite[0], spec.NetHosts[0], spec.Tools[0] = "/", "/", "evil.com", "exec"
	spec.FSRead = append(spec.FSRead, "/etc/")
	spec.FSWrite = append(spec.FSWrite, "/work/")
	spec.NetHosts = append(spec.NetHosts, "169.254.169.254")
	spec.Tools = append(spec.Tools, "summarize")
	spec.MaxOps = math.MaxInt64
	check("mutating the GrantSpec")

	// The same through a sandbox's GrantView.
	r := core.NewReference(g, refworld.New(scenario.WorldSpec{}))
	v := r.Grant()
	for _, s := range [][]string{v.FSRead(), v.FSWrite(), v.NetHosts(), v.Tools()} {
		for i := range s {
			s[i] = "/"
		}
	}
	check("mutating the sandbox's GrantView")
	if got := r.Run(core.Op{Kind: core.OpRead, Args: []string{"/etc/passwd"}}); got.Kind != core.FSReadDenied {
		t.Errorf("after mutating the GrantView, fs_read /etc/passwd = %v, want fs_read_denied", got.Kind)
	}
}

// TestGrantKeepsEmptyLists: a list given empty reads back empty, not nil,
// and a list not given reads back nil.
func TestGrantKeepsEmptyLists(t *testing.T) {
	g := must.Grant(core.GrantSpec{FSRead: []string{}, Tools: []string{"echo"}})
	if l := g.FSRead(); l == nil || len(l) != 0 {
		t.Errorf("FSRead() = %#v, want an empty list", l)
	}
	if l := g.FSWrite(); l != nil {
		t.Errorf("FSWrite() = %#v, want nil", l)
	}
	if l := g.Tools(); len(l) != 1 || l[0] != "echo" {
		t.Errorf("Tools() = %#v", l)
	}
}

// TestGrantEveryShape builds grants of every split of up to six items over
// the four lists, each list nil, empty or holding distinct items, and
// checks that the accessors give back each list exactly (nil as nil, empty
// as empty), and that every decision uses the right list: each fs_read root
// and no fs_write root allows a read, and so on.
func TestGrantEveryShape(t *testing.T) {
	const maxItems = 6
	// A list of k items, -1 for nil, tagged by the list so that an item
	// read from the wrong list shows.
	list := func(k int, item func(i int) string) []string {
		if k < 0 {
			return nil
		}
		l := make([]string, 0, k+4) // spare capacity a careless copy would share
		for i := range k {
			l = append(l, item(i))
		}
		return l
	}
	for a := -1; a <= maxItems; a++ {
		for b := -1; b <= maxItems-max(a, 0); b++ {
			for c := -1; c <= maxItems-max(a, 0)-max(b, 0); c++ {
				for d := -1; d <= maxItems-max(a, 0)-max(b, 0)-max(c, 0); d++ {
					spec := core.GrantSpec{
						FSRead:   list(a, func(i int) string { return fmt.Sprintf("/r%d/", i) }),
						FSWrite:  list(b, func(i int) string { return fmt.Sprintf("/w%d", i) }), // no trailing slash: newRoot makes a prefix
						NetHosts: list(c, func(i int) string { return fmt.Sprintf("h%d.example", i) }),
						Tools:    list(d, func(i int) string { return fmt.Sprintf("t%d", i) }),
						Budgets:  core.Budgets{MaxOps: int64(a), MaxWall: int64(b + 1), MaxOutputBytes: int64(c + 1)},
					}
					spec.MaxOps = max(spec.MaxOps, 0)
					shape := fmt.Sprintf("lists of %d %d %d %d items", a, b, c, d)
					g, err := core.NewGrant(spec)
					if err != nil {
						t.Fatalf("%s: %v", shape, err)
					}
					want := core.GrantSpec{FSRead: slices.Clone(spec.FSRead), FSWrite: slices.Clone(spec.FSWrite),
						NetHosts: slices.Clone(spec.NetHosts), Tools: slices.Clone(spec.Tools), Budgets: spec.Budgets}
					clear(spec.FSRead[:cap(spec.FSRead)]) // the grant must hold copies
					clear(spec.FSWrite[:cap(spec.FSWrite)])
					clear(spec.NetHosts[:cap(spec.NetHosts)])
					clear(spec.Tools[:cap(spec.Tools)])
					if diff := cmp.Diff(want, accessors(g)); diff != "" { // nil and empty told apart
						t.Fatalf("%s: accessors mismatch (-want +got):\n%s", shape, diff)
					}
					for i := range maxItems {
						r, w := fmt.Sprintf("/r%d/x", i), fmt.Sprintf("/w%d/x", i)
						h, tool := fmt.Sprintf("h%d.example", i), fmt.Sprintf("t%d", i)
						for _, dec := range []struct {
							what      string
							got, want bool
						}{
							{"MayRead " + r, g.MayRead(r), i < a},
							{"MayWrite " + r, g.MayWrite(r), false},
							{"MayWrite " + w, g.MayWrite(w), i < b},
							{"MayRead " + w, g.MayRead(w), false},
							{"MayFetch " + h, g.MayFetch(h), i < c},
							{"MayCall " + tool, g.MayCall(tool), i < d},
							{"MayFetch " + tool, g.MayFetch(tool), false},
							{"MayCall " + h, g.MayCall(h), false},
						} {
							if dec.got != dec.want {
								t.Fatalf("%s: %s = %v, want %v", shape, dec.what, dec.got, dec.want)
							}
						}
					}
				}
			}
		}
	}
}

// TestGrantMatches: a grant matches the spec it was built from (and copies
// of it), and no spec that differs in a budget, an item, an item's list,
// or a list given empty instead of not at all.
func TestGrantMatches(t *testing.T) {
	base := validSpec()
	base.FSRead = append(base.FSRead, "/srv/")
	g := must.Grant(base)
	if !g.Matches(base) || !g.Matches(g.Spec()) {
		t.Fatalf("the grant does not match its own spec %+v", base)
	}
	edits := map[string]func(s *core.GrantSpec){
		"a budget":                     func(s *core.GrantSpec) { s.MaxWall++ },
		"an fs_read root":              func(s *core.GrantSpec) { s.FSRead[1] = "/srv" },
		"an fs_read root dropped":      func(s *core.GrantSpec) { s.FSRead = s.FSRead[:1] },
		"an fs_write root":             func(s *core.GrantSpec) { s.FSWrite = append(s.FSWrite, "/tmp/") },
		"a host":                       func(s *core.GrantSpec) { s.NetHosts[0] = "api.internal." },
		"a tool":                       func(s *core.GrantSpec) { s.Tools[0] = "ECHO" },
		"a root moved to fs_write":     func(s *core.GrantSpec) { s.FSWrite, s.FSRead = append(s.FSWrite, s.FSRead[1]), s.FSRead[:1] },
		"the tool moved to net":        func(s *core.GrantSpec) { s.NetHosts, s.Tools = append(s.NetHosts, s.Tools...), nil },
		"the tools given empty":        func(s *core.GrantSpec) { s.Tools = []string{} },
		"the fs_write roots not given": func(s *core.GrantSpec) { s.FSWrite = nil },
	}
	for what, edit := range edits {
		s := g.Spec() // a fresh copy to edit
		edit(&s)
		if g.Matches(s) {
			t.Errorf("the grant matches its spec with %s changed: %+v", what, s)
		}
	}
	var zero core.Grant
	if !zero.Matches(core.GrantSpec{}) || zero.Matches(core.GrantSpec{Tools: []string{}}) || zero.Matches(base) {
		t.Error("the zero Grant matches wrongly")
	}
	empty := must.Grant(core.GrantSpec{FSRead: []string{}})
	if !empty.Matches(core.GrantSpec{FSRead: []string{}}) || empty.Matches(core.GrantSpec{}) {
		t.Error("a grant of an empty list matches wrongly")
	}
}
