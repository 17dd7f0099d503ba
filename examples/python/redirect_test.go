//go:build unix

package python

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/networld"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestOwnHTTPRedirect: in a network namespace answered by the harness's
// own binding (package networld), a fetch of a redirect route is ok with
// its URL, the 302's body, and is not followed: whether the Location is
// internal or a host the grant does not list, the journal holds the op's
// one resolve and one fetch of the granted host, and nothing else.
func TestOwnHTTPRedirect(t *testing.T) {
	if err := netns.Supported(); err != nil {
		t.Skip(err)
	}
	py := python3(t)
	for _, loc := range []string{metaURL, "http://127.0.0.1/", "http://evil.test/x"} {
		w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{{Host: "a.test", Path: "/r", Body: loc, Redirect: true}}})
		b := networld.New()
		b.Use(w)
		op := []string{"net_fetch", "a.test", "/r"}
		b.BeginOp(core.Op{Kind: op[0], Args: op[1:]})
		got, _ := driveInNamespace(t, py, job{Grant: grant{[]string{"a.test"}, budgets(1000)}, Ops: [][]string{op}}, b.Network(80))
		b.EndOp()
		if diff := cmp.Diff([]string{"ok " + loc}, got.Results); diff != "" {
			t.Errorf("Location %s: results (-want +got)\n%s", loc, diff)
		}
		var journal []string
		for _, e := range w.Journal() {
			journal = append(journal, e.String())
		}
		if want := []string{"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r"}; !slices.Equal(journal, want) {
			t.Errorf("Location %s: journal %q, want %q", loc, journal, want)
		}
	}
}
