package proxysut

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Redirect Locations: internal addresses in three spellings, and a host
// the grant does not list.
var (
	internalLocations = []string{"http://169.254.169.254/latest/meta-data/", "http://127.0.0.1/", "http://[::ffff:127.0.0.1]/"}
	ungrantedLocation = "http://evil.test/x"
)

// redirectScenario grants a.test, whose /r redirects to location, and
// fetches it; the model answers ok with the URL.
func redirectScenario(location string) string {
	return "grant net a.test\nredirect a.test /r " + strconv.Quote(location) + "\n\nnet_fetch a.test /r => ok " + strconv.Quote(location) + "\n"
}

// checkRedirects judges every redirect scenario on tg and fails the test
// where the findings' invariants are not want's for the Location: wantIn
// for an internal one, wantOut for the ungranted host.
func checkRedirects(t *testing.T, tg door.Target, name string, wantIn, wantOut []string) {
	t.Helper()
	for _, loc := range append(slices.Clone(internalLocations), ungrantedLocation) {
		want := wantIn
		if loc == ungrantedLocation {
			want = wantOut
		}
		fs, tally := checkOn(t, tg, redirectScenario(loc), 0)
		if got := invariants(fs); !slices.Equal(got, want) {
			t.Errorf("%s, Location %s: findings %q, want %q\n%v", name, loc, got, want, fs)
		}
		if want == nil && tally.Passed != 1 {
			t.Errorf("%s, Location %s: %d fetches let through, want 1 (the run's; the replay is not counted)", name, loc, tally.Passed)
		}
	}
}

// TestRedirectThroughProxy: a proxy that relays the world's 302 (the
// fake open proxy) is judged ok with the URL, as the model answers, and
// clean; one that follows the redirect itself is caught on the request it
// made for it: an internal Location is no-internal-egress (and, its host
// not granted, confinement), a Location at a host the grant does not list
// is confinement. Its verdict is the URL, the world's answer to the op's
// own request, as a fetch server's is: following is judged on where it
// goes, not on what it relays.
func TestRedirectThroughProxy(t *testing.T) {
	checkRedirects(t, fakeTarget(t, "open", "", 0), "relaying proxy", nil, nil)
	checkRedirects(t, fakeTarget(t, "follow", "", 0), "following proxy",
		[]string{"confinement", "no-internal-egress"}, []string{"confinement"})
	// A redirect on the granted host itself, followed: the proxy relays
	// the page it lands on, the fetch's answer is still the URL.
	if fs, _ := checkOn(t, fakeTarget(t, "follow", "", 0),
		"grant net a.test\nredirect a.test /r /s\nroute a.test /s landed\n\nnet_fetch a.test /r => ok /s\n", 0); len(fs) > 0 {
		t.Errorf("following proxy, a redirect on its own host: %v, want no finding", fs)
	}
}

// TestRedirectThroughFetchServer: an MCP fetch tool's verdict for a
// redirect route is the world's answer to the op's own request, the URL,
// whether or not the tool followed it: one that does not follow (open,
// guard) is clean; one that follows is caught on the request it made for
// the Location alone.
func TestRedirectThroughFetchServer(t *testing.T) {
	for _, mode := range []string{"open", "guard"} {
		checkRedirects(t, fakeServerTarget(t, mode, 0), mode+" server", nil, nil)
	}
	checkRedirects(t, fakeServerTarget(t, "follow", 0), "following server",
		[]string{"confinement", "no-internal-egress"}, []string{"confinement"})
}

// TestRedirectThroughHostlessServer: a server given no hosts can
// express one grant only, every host, so one that follows a redirect is
// judged on where it connects, not on which host: a Location at an
// internal address is no-internal-egress alone, one at a public host the
// ops never named is clean (AdaptOpen grants the hosts a Location names).
func TestRedirectThroughHostlessServer(t *testing.T) {
	p, err := ParseProfile([]byte(`{"name": "hostless", "mcp": {"tool": "fetch"}}`))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ServerTarget(fakeServerCommand(t, "follow"), "", p, Timeouts{})
	if err != nil {
		t.Fatal(err)
	}
	checkRedirects(t, tg, "following hostless server", []string{"no-internal-egress"}, nil)
}

// TestExampleRelaysRedirects: the example proxy, asked by absolute-form
// GET and through CONNECT, relays the world's 302 to its client, with its
// Location, its body the URL and the world's header, and does not follow
// it: one resolve and one fetch of the granted host are journaled, and a
// check of every redirect scenario finds nothing.
func TestExampleRelaysRedirects(t *testing.T) {
	bin := BuiltExample(t)
	for _, profile := range []string{"", "egressproxy-connect"} {
		tg, err := Target(bin, profile, Timeouts{})
		if err != nil {
			t.Fatal(err)
		}
		name := "example proxy, profile " + strconv.Quote(profile)
		checkRedirects(t, tg, name, nil, nil)

		// Its answer and the journal, read directly.
		p, err := LoadProfile(profile)
		if err != nil {
			t.Fatal(err)
		}
		px, err := startProxy([]string{bin}, p, []string{"a.test"}, t.TempDir(), time.Minute, "") // a bound for a broken start, far above a start
		if err != nil {
			t.Fatal(err)
		}
		loc := internalLocations[0]
		w := refworld.New(scenario.WorldSpec{Routes: []scenario.Route{{Host: "a.test", Path: "/r", Body: loc, Redirect: true}}})
		ans, err := askProxy(px, w, "a.test", "/r")
		px.close()
		if err != nil {
			t.Fatal(err)
		}
		if want := (answer{status: http.StatusFound, world: true, body: loc}); ans != want {
			t.Errorf("%s: answer %+v, want the world's 302 relayed, %+v", name, ans, want)
		}
		var journal []string
		for _, e := range w.Journal() {
			journal = append(journal, e.String())
		}
		if want := []string{"resolve a.test -> 203.0.113.1", "fetch a.test 203.0.113.1 /r"}; !slices.Equal(journal, want) {
			t.Errorf("%s: journal %q, want %q", name, journal, want)
		}
	}
}

// askProxy asks px for http://host/path, its namespace answered by w,
// and returns its answer, as the bridge asks it.
func askProxy(px *proxy, w *refworld.World, host, path string) (answer, error) {
	px.bindTo(w)
	op := core.Op{Kind: core.OpFetch, Args: []string{host, path}}
	px.bind.BeginOp(op)
	defer px.bind.EndOp()
	deadline := time.Now().Add(time.Minute) // an end to a hang, far above what a fetch takes
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	conn, err := px.sb.Dial(ctx, "tcp", px.listen.String())
	if err != nil {
		return answer{}, err
	}
	defer conn.Close()
	return px.fetch(conn, host, path, deadline)
}
