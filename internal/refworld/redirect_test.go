package refworld

import (
	"net/netip"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestRedirect: a redirect route's URL is what a fetch returns (one
// request) and what Location names; a route is no redirect; the later
// line for a host and path wins, redirect or route; Location journals
// nothing.
func TestRedirect(t *testing.T) {
	const meta = "http://169.254.169.254/latest/meta-data/"
	w := Prepare(scenario.WorldSpec{Routes: []scenario.Route{
		{Host: "a.test", Path: "/r", Body: meta, Redirect: true},
		{Host: "a.test", Path: "/p", Body: "page"},
		{Host: "b.test", Path: "/", Body: "http://x.test/", Redirect: true},
		{Host: "b.test", Path: "/", Body: "replaced"},
		{Host: "c.test", Path: "/", Body: "first"},
		{Host: "c.test", Path: "/", Body: "/next", Redirect: true},
	}}).New()
	for _, tc := range []struct {
		host, path, body string
		redirect         bool
	}{
		{"a.test", "/r", meta, true},
		{"A.TEST.", "/r", meta, true},
		{"a.test", "/p", "page", false},
		{"a.test", "/none", "", false},
		{"b.test", "/", "replaced", false},
		{"c.test", "/", "/next", true},
	} {
		if body, _ := w.Fetch(tc.host, netip.Addr{}, tc.path); body != tc.body {
			t.Errorf("Fetch(%q, %q) = %q, want %q", tc.host, tc.path, body, tc.body)
		}
		loc, ok := w.Location(tc.host, tc.path)
		if ok != tc.redirect || ok && loc != tc.body {
			t.Errorf("Location(%q, %q) = %q, %v, want %q, %v", tc.host, tc.path, loc, ok, tc.body, tc.redirect)
		}
	}
	if n := len(w.Journal()); n != 6 {
		t.Errorf("journal holds %d entries, want the 6 fetches only", n)
	}
}
