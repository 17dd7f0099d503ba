package httpguard

import (
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// redirectScenario redirects paths of a granted host to the metadata
// address, to loopback in two spellings, to a host the grant does not
// list, and to a Location that is no URL.
const redirectScenario = `grant net a.test
redirect a.test /meta http://169.254.169.254/latest/meta-data/
redirect a.test /loop http://127.0.0.1/
redirect a.test /mapped "http://[::ffff:127.0.0.1]/"
redirect a.test /evil http://evil.test/x
redirect a.test /odd "%zz:not a URL"

net_fetch a.test /meta
net_fetch a.test /loop
net_fetch a.test /mapped
net_fetch a.test /evil
net_fetch a.test /odd
`

// TestRedirectIsTheAnswer: the guard answers a redirect route ok with
// its URL, as SPEC §5's one request per fetch does, and never follows it:
// each op journals one resolve and one fetch, of the granted host. A
// Location that is no URL is answered the same (an http.Client would fail
// on it even told not to follow). The oracle finds nothing.
func TestRedirectIsTheAnswer(t *testing.T) {
	sc, err := scenario.Parse("redirect.sbx", []byte(redirectScenario))
	if err != nil {
		t.Fatal(err)
	}
	g, err := core.NewGrant(sc.Grant)
	if err != nil {
		t.Fatal(err)
	}
	w := refworld.New(sc.World)
	sb := newSandbox(g, w, "")
	defer sb.Close()
	for _, st := range sc.Steps {
		url, _ := w.Location(st.Op.Args[0], st.Op.Args[1])
		if got := sb.Run(st.Op); got.Kind != core.OK || got.Data != url {
			t.Errorf("%v: %v %q, want ok %q", st.Op, got.Kind, got.Data, url)
		}
	}
	var fetched []string
	for _, e := range w.Journal() {
		if e.Call == refworld.CallFetch {
			fetched = append(fetched, e.Name+" "+e.Arg)
		}
	}
	want := []string{"a.test /meta", "a.test /loop", "a.test /mapped", "a.test /evil", "a.test /odd"}
	if !slices.Equal(fetched, want) {
		t.Errorf("fetches journaled %q, want the ops' own only: %q", fetched, want)
	}
	fs, err := oracle.Check(New, sc, nil, oracle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		t.Errorf("finding: %s at step %d: %s", f.Invariant, f.Step, f.Detail)
	}
}
