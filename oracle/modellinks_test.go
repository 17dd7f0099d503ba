package oracle

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// chain returns n links /c/0 → /c/1 → … → /c/n-1 → /c/end, and /c/x → /c/0,
// which makes the chain n+1 long.
func chain(n int) []scenario.Link {
	var out []scenario.Link
	for i := 0; i < n; i++ {
		next := fmt.Sprintf("/c/%d", i+1)
		if i == n-1 {
			next = "/c/end"
		}
		out = append(out, scenario.Link{Path: fmt.Sprintf("/c/%d", i), Target: next})
	}
	return append(out, scenario.Link{Path: "/c/x", Target: "/c/0"})
}

// TestModelRealpathSPECSection13: the model's resolution, against answers
// derived by hand from SPEC §13.
func TestModelRealpathSPECSection13(t *testing.T) {
	links := append([]scenario.Link{
		{Path: "/work/l", Target: "/etc/secret"},
		{Path: "/work/d", Target: "../etc"},
		{Path: "/work/rel", Target: "a"},
		{Path: "/work/loop", Target: "/work/loop"},
		{Path: "/work/c1", Target: "c2"},
		{Path: "/work/c2", Target: "/work/d"},
		{Path: "/a", Target: "/b"},
		{Path: "/b", Target: "/a"},
		{Path: "/work/up", Target: ".."},
		{Path: "/work/dot", Target: "."},
		{Path: "/work/empty", Target: ""},    // no link
		{Path: "/", Target: "/work"},         // no link
		{Path: "/work/again", Target: "a"},   // replaced by the next line
		{Path: "/work//again/", Target: "b"}, // the same link path, cleaned
	}, chain(spec.MaxLinks)...)
	w := newModelWorld(newModelBase(scenario.WorldSpec{Links: links}))
	for _, tt := range []struct {
		p, want string
		ok      bool
	}{
		{"/work/l", "/etc/secret", true},
		{"//work//l/", "/etc/secret", true},
		{"/work/d/secret", "/etc/secret", true},
		{"/work/d/../x", "/x", true}, // ".." leaves /etc, the directory really reached
		{"/work/rel", "/work/a", true},
		{"/work/loop", "", false},
		{"/a/x", "", false},
		{"/work/c1/passwd", "/etc/passwd", true},
		{"/work/up/etc", "/etc", true},
		{"/work/dot/dot/a", "/work/a", true},
		{"/work/new/file", "/work/new/file", true},
		{"/work/empty", "/work/empty", true},
		{"/work/again", "/work/b", true},
		{"/c/0", "/c/end", true}, // 40 links
		{"/c/x", "", false},      // 41
		{"", ".", true},
		{"work/l", "work/l", true},
		{"/..", "/", true},
	} {
		got, ok := w.realpath(tt.p)
		if got != tt.want || ok != tt.ok {
			t.Errorf("realpath(%q) = %q, %v; want %q, %v", tt.p, got, ok, tt.want, tt.ok)
		}
	}
}

// TestModelRealpathAgreesWithCore: on random worlds of links over a small
// alphabet, relative and absolute targets, ".." and "." included, the
// model's resolution and core's give the same answers.
func TestModelRealpathAgreesWithCore(t *testing.T) {
	names := []string{"a", "b", "c", "..", ".", ""}
	rnd := rand.New(rand.NewPCG(1, 2))
	randPath := func(abs bool) string {
		n := 1 + rnd.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = names[rnd.IntN(len(names))]
		}
		p := strings.Join(parts, "/")
		if abs {
			p = "/" + p
		}
		return p
	}
	for world := 0; world < 2000; world++ {
		var ws scenario.WorldSpec
		for i := rnd.IntN(6); i > 0; i-- {
			ws.Links = append(ws.Links, scenario.Link{Path: randPath(rnd.IntN(8) > 0), Target: randPath(rnd.IntN(2) == 0)})
		}
		tmpl := refworld.Prepare(ws)
		m := newModelWorld(newModelBase(ws))
		for q := 0; q < 20; q++ {
			p := randPath(rnd.IntN(8) > 0)
			want, wantOK := tmpl.Resolve(p)
			got, ok := m.realpath(p)
			if got != want || ok != wantOK {
				t.Fatalf("links %v: realpath(%q): model %q, %v; core %q, %v", ws.Links, p, got, ok, want, wantOK)
			}
		}
	}
}

// TestModelRealpathOnLongChains: on random worlds of chains long enough
// that the 40-link limit falls anywhere in them, loops and directory
// links, every answer of the model's world agrees with the harness
// world's resolution (refworld.Template.Resolve), however many paths it walked before.
func TestModelRealpathOnLongChains(t *testing.T) {
	rnd := rand.New(rand.NewPCG(18, 13))
	dirs := []string{"a", "b"}
	name := func() string { return fmt.Sprintf("/%s/%d", dirs[rnd.IntN(2)], rnd.IntN(60)) }
	for world := range 300 {
		var ws scenario.WorldSpec
		for range 1 + rnd.IntN(3) { // a chain of 30 to 45 links
			d, n, start := dirs[rnd.IntN(2)], 30+rnd.IntN(16), rnd.IntN(20)
			for i := range n {
				target := fmt.Sprint(start + i + 1)
				if rnd.IntN(4) == 0 {
					target = fmt.Sprintf("/%s/%d", d, start+i+1)
				}
				ws.Links = append(ws.Links, scenario.Link{Path: fmt.Sprintf("/%s/%d", d, start+i), Target: target})
			}
		}
		for range rnd.IntN(25) {
			targets := []string{name(), "..", ".", "../b", "x/..", name() + "/c", "../" + fmt.Sprint(rnd.IntN(60)), fmt.Sprint(rnd.IntN(60)), "/"}
			ws.Links = append(ws.Links, scenario.Link{Path: name(), Target: targets[rnd.IntN(len(targets))]})
		}
		rnd.Shuffle(len(ws.Links), func(i, j int) { ws.Links[i], ws.Links[j] = ws.Links[j], ws.Links[i] })
		tmpl := refworld.Prepare(ws)
		used := newModelWorld(newModelBase(ws))
		for range 300 {
			p := name()
			for range rnd.IntN(3) {
				p += []string{"/c", "/..", "/.", "/" + fmt.Sprint(rnd.IntN(60)), "//x"}[rnd.IntN(5)]
			}
			want, wantOK := tmpl.Resolve(p)
			if got, ok := used.realpath(p); got != want || ok != wantOK {
				t.Fatalf("world %d: realpath(%q) = %q, %v; core says %q, %v (links %v)", world, p, got, ok, want, wantOK, ws.Links)
			}
		}
	}
}
