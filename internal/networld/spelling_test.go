package networld

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// follower is the reference, which answers the op, beside a client that
// follows the op's redirect to target through the namespace as a program
// does: its resolver's queries reach the binding as netns hands them
// (lower case, no trailing dot), its request carries the Host the
// Location wrote.
type follower struct {
	core.Sandbox
	b            *Binding
	query, host  string
	followedPath string
}

func (f follower) Run(op core.Op) core.Result {
	f.b.BeginOp(op)
	res := f.Sandbox.Run(op)
	serve(f.b, "GET", op.Args[1], op.Args[0]) // the op's request, answered 302
	f.b.Resolve(f.query, netns.IPv4)
	f.b.Resolve(f.query, netns.IPv6)
	serve(f.b, "GET", f.followedPath, f.host)
	f.b.EndOp()
	return res
}

// TestQueryForARedirectIsJournaledAsItsLocationSpellsIt: a sandbox that
// follows a redirect to a granted host spelled "B.test" (or "b.test.")
// asks DNS for "b.test", which the server reads folded; the resolve is
// journaled as the Location spelled the host, which the grant lists byte
// for byte, and no finding is made.
func TestQueryForARedirectIsJournaledAsItsLocationSpellsIt(t *testing.T) {
	for _, granted := range []string{"B.test", "b.test."} {
		text := "grant net a.test " + granted + "\nredirect a.test /go http://" + granted + "/data\nroute " + granted + " /data hi\nnet_fetch a.test /go\n"
		sc, err := scenario.Parse("spelling.sbx", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		var world *refworld.World
		factory := func(g core.Grant, w core.World) (core.Sandbox, error) {
			b := New()
			b.localAddr = func(*http.Request) netip.AddrPort { return netip.MustParseAddrPort("203.0.113.1:80") }
			world = w.(*refworld.World)
			b.Use(world)
			return follower{core.NewReference(g, w), b, "b.test", granted, "/data"}, nil
		}
		fs, err := oracle.Check(factory, sc, nil, oracle.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			t.Errorf("%s: a sandbox that followed a redirect to a granted host is accused: %v", granted, f)
		}
		if world != nil {
			t.Logf("%s: %q", granted, journal(world))
		}
	}
}

// TestQueryForAnotherHostKeepsItsName: a query for a host neither the op
// nor a redirect of it names is journaled as the server read it.
func TestQueryForAnotherHostKeepsItsName(t *testing.T) {
	w := testWorld()
	b := bound(w, public)
	b.BeginOp(fetchOp("a.test", "/data"))
	b.Resolve("c.test", netns.IPv4)
	b.EndOp()
	wantJournal(t, w, "resolve c.test -> 203.0.113.1")
}
