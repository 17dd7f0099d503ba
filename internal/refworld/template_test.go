package refworld

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

var templateSpec = scenario.WorldSpec{
	Files: []scenario.File{{Path: "/work/a", Data: "1"}, {Path: "//work/./b", Data: "2"}, {Path: "/work/a", Data: "3"}}, // the later /work/a wins
	DNS: []scenario.DNSRecord{
		{Host: "Rebind.Example.", Addrs: []netip.Addr{netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("127.0.0.1")}},
		{Host: "gone.example", Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.1")}},
		{Host: "gone.example"}, // a later empty line: the static answer again
		{Host: "twice.example", Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.2")}},
		{Host: "TWICE.example", Addrs: []netip.Addr{netip.MustParseAddr("198.51.100.7")}},
	},
	Clock: scenario.TickClock{Start: 5, Step: 2},
}

// TestWorldsFromOneTemplateShareNothing: what one world does — writes, DNS
// answers consumed, clock reads — no other world started from the same
// template sees, and a fresh world always starts where the spec says.
func TestWorldsFromOneTemplateShareNothing(t *testing.T) {
	tmpl := Prepare(templateSpec)
	w1, w2 := tmpl.New(), tmpl.New()
	fp0 := w2.Fingerprint()

	w1.Write("/work/a", "changed")
	w1.Write("/work/new", "x")
	if got := w1.Resolve("rebind.example"); got != netip.MustParseAddr("203.0.113.9") {
		t.Fatalf("w1's first resolve = %v", got)
	}
	if got, _ := w1.Now(); got != 5 {
		t.Fatalf("w1's first clock read = %d", got)
	}

	if d, _ := w2.Lookup("/work/a"); d != "3" {
		t.Errorf("w2 reads /work/a = %q after w1 wrote it, want the template's %q", d, "3")
	}
	if _, ok := w2.Lookup("/work/new"); ok {
		t.Error("w2 sees a file only w1 wrote")
	}
	if w2.Fingerprint() != fp0 {
		t.Error("w2's fingerprint moved when w1 wrote")
	}
	if got := w2.Resolve("rebind.example"); got != netip.MustParseAddr("203.0.113.9") {
		t.Errorf("w2 resolves rebind.example to %v: w1 advanced its DNS cursor", got)
	}
	if got, _ := w2.Now(); got != 5 {
		t.Errorf("w2's first clock read = %d: w1 advanced its clock", got)
	}
	if got := w1.Resolve("rebind.example"); got != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("w1's second resolve = %v, want the rebinding answer", got)
	}
	if got, want := tmpl.New().Resolve("gone.example"), spec.StaticResolve("gone.example"); got != want {
		t.Errorf("a host whose last DNS line is empty resolves to %v, want the static %v", got, want)
	}
	if got := tmpl.New().Resolve("twice.example"); got != netip.MustParseAddr("198.51.100.7") {
		t.Errorf("a host with two DNS lines resolves to %v, want the later line's answer", got)
	}
	if d, _ := w2.Lookup("/work/b"); d != "2" {
		t.Errorf("/work/b = %q, want the file stored at the canonical path", d)
	}
}

// TestFingerprintFollowsWrites: a fingerprint moves with every change of
// content and comes back when the content does, whether it was first read
// before or after the writes; worlds from one template that reach the same
// content by different writes read the same; Files merges the template with
// the writes.
func TestFingerprintFollowsWrites(t *testing.T) {
	tmpl := Prepare(templateSpec)
	for _, early := range []bool{false, true} {
		w, start := tmpl.New(), tmpl.New().Fingerprint()
		if early && w.Fingerprint() != start {
			t.Fatal("two fresh worlds from one template read different fingerprints")
		}
		w.Write("/work/a", "changed")
		changed := w.Fingerprint()
		if changed == start {
			t.Errorf("overwriting a template file left the fingerprint (first read early: %v) where it was", early)
		}
		w.Write("/work//new", "x")
		if w.Fingerprint() == changed {
			t.Error("adding a file left the fingerprint where it was")
		}
		wantFiles := map[string]string{"/work/a": "changed", "/work/b": "2", "/work/new": "x"}
		if diff := cmp.Diff(wantFiles, w.Files()); diff != "" {
			t.Errorf("Files() mismatch (-want +got):\n%s", diff)
		}

		other := tmpl.New() // the same content, written in another order, with a detour
		other.Write("/work/new", "y")
		other.Write("/work/new", "x")
		other.Write("/work/a", "changed")
		if other.Fingerprint() != w.Fingerprint() {
			t.Error("two worlds from one template with the same content read different fingerprints")
		}
		other.Write("/work/a", "3") // back to the template's content for /work/a
		w2 := tmpl.New()
		w2.Write("/work/new", "x")
		if other.Fingerprint() != w2.Fingerprint() {
			t.Error("writing a template file's own content back did not bring its fingerprint back")
		}
	}
	if New(scenario.WorldSpec{}).Fingerprint() != 0 || len(New(scenario.WorldSpec{}).Files()) != 0 {
		t.Error("an empty world has files or a fingerprint")
	}
}

// TestTemplateConcurrentUse starts and drives worlds from one template on
// many goroutines; go test -race fails it if starting or using a world
// writes to the template.
func TestTemplateConcurrentUse(t *testing.T) {
	tmpl := Prepare(templateSpec)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				w := tmpl.New()
				w.Write("/work/a", "x")
				w.Resolve("rebind.example")
				w.Fingerprint()
				if d, _ := w.Lookup("/work/b"); d != "2" {
					t.Errorf("/work/b = %q", d)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestPrepareReusesATemplate: a template prepared again, for another world,
// answers exactly as one prepared fresh for that world — nothing of the
// earlier world is left in it, whichever of the two is larger — and so does
// a used world renewed from it; a template's DNS answers are copies, not
// the spec's arrays.
func TestPrepareReusesATemplate(t *testing.T) {
	big := scenario.WorldSpec{Clock: scenario.TickClock{Start: 1, Step: 3}}
	for i := range 24 {
		p := "/big/" + strconv.Itoa(i)
		big.Files = append(big.Files, scenario.File{Path: p, Data: "b" + p})
		big.Links = append(big.Links, scenario.Link{Path: p + "l", Target: p})
		big.Routes = append(big.Routes, scenario.Route{Host: "h" + strconv.Itoa(i) + ".example", Path: "/", Body: p})
		big.DNS = append(big.DNS, scenario.DNSRecord{Host: "h" + strconv.Itoa(i) + ".example", Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.9")}})
		big.ToolOutputs = append(big.ToolOutputs, scenario.ToolOutput{Name: "t" + strconv.Itoa(i), Output: p})
	}
	probe := func(w *World) []string {
		var out []string
		for _, p := range []string{"/work/a", "/work/b", "/big/1", "/big/20", "/big/1l", "/big/20l"} {
			r, ok := w.Realpath(p)
			d, found := w.Read(p)
			out = append(out, fmt.Sprint(p, r, ok, d, found))
		}
		for _, h := range []string{"rebind.example", "rebind.example", "gone.example", "twice.example", "h1.example", "h20.example"} {
			a := w.Resolve(h)
			body, ok := w.Fetch(h, a, "/")
			out = append(out, fmt.Sprint(h, a, body, ok))
		}
		for _, name := range []string{"t1", "t20", "echo"} {
			o, ok := w.Call(name, "in")
			out = append(out, fmt.Sprint(name, o, ok))
		}
		now, _ := w.Now()
		w.Write("/big/1", "written")
		fp := w.Fingerprint()
		return append(out, fmt.Sprint(now, w.Spec().Clock, w.JournalLen(), w.ClockReads(), fp))
	}
	for _, order := range [][2]scenario.WorldSpec{{big, templateSpec}, {templateSpec, big}, {big, big}} {
		reused := Prepare(order[0])
		used := reused.New()
		probe(used) // writes, resolves, reads the clock: none of it may show after Renew
		reused.Prepare(order[1])
		fresh := probe(Prepare(order[1]).New())
		if diff := cmp.Diff(fresh, probe(reused.New())); diff != "" {
			t.Errorf("a template prepared again answers differently from a fresh one (-fresh +reused):\n%s", diff)
		}
		reused.Renew(used)
		if diff := cmp.Diff(fresh, probe(used)); diff != "" {
			t.Errorf("a world renewed answers differently from a fresh one (-fresh +renewed):\n%s", diff)
		}
	}
	spec := scenario.WorldSpec{DNS: []scenario.DNSRecord{{Host: "a.example", Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.1")}}}}
	tmpl := Prepare(spec)
	spec.DNS[0].Addrs[0] = netip.MustParseAddr("203.0.113.1")
	if got := tmpl.New().Resolve("a.example"); got != netip.MustParseAddr("10.0.0.1") {
		t.Errorf("changing the spec's addresses after Prepare changed the template's answer to %v", got)
	}
}

// TestLinksOfEveryLength: links whose paths are short and long (up to 600
// bytes), in a world with few links and with many, are each followed.
func TestLinksOfEveryLength(t *testing.T) {
	for _, many := range []bool{false, true} {
		var spec scenario.WorldSpec
		var paths []string
		for _, n := range []int{2, 200, 254, 255, 256, 300, 600} {
			p := "/" + strings.Repeat("l", n-1)
			paths = append(paths, p)
			spec.Links = append(spec.Links, scenario.Link{Path: p, Target: "/target" + strconv.Itoa(n)})
		}
		if many {
			for i := range 16 {
				spec.Links = append(spec.Links, scenario.Link{Path: "/other/" + strconv.Itoa(i), Target: "/x"})
			}
		}
		tmpl := Prepare(spec)
		for _, p := range paths {
			want := "/target" + strconv.Itoa(len(p)) + "/f"
			if got, ok := tmpl.Resolve(p + "/f"); !ok || got != want {
				t.Errorf("many=%v: the link at a path of %d bytes: Resolve = %q, %v; want %q", many, len(p), got, ok, want)
			}
		}
	}
}
