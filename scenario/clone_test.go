package scenario

import (
	"net/netip"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCloneSharesNothing clones a scenario that fills every list, scribbles
// on every element of the copy, and checks the original did not change: a
// Clone that shares any list, DNS answer, argument, comment or expectation
// fails it.
func TestCloneSharesNothing(t *testing.T) {
	src, err := os.ReadFile("testdata/messy.sbx")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := Parse("messy.sbx", src)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Parse("messy.sbx", src)
	c := orig.Clone()
	if diff := cmp.Diff(*orig, *c, likeEqual); diff != "" {
		t.Fatalf("Clone() mismatch (-original +clone):\n%s", diff)
	}
	if !c.Equal(orig) {
		t.Fatal("Equal is false on the clone")
	}
	for _, list := range [][]string{c.Comment, c.Grant.FSRead, c.Grant.FSWrite, c.Grant.NetHosts, c.Grant.Tools} {
		for i := range list {
			list[i] = "scribbled"
		}
	}
	for i := range c.World.Files {
		c.World.Files[i].Data = "scribbled"
	}
	for i := range c.World.Routes {
		c.World.Routes[i].Body = "scribbled"
	}
	for i := range c.World.Links {
		c.World.Links[i].Target = "scribbled"
	}
	for i := range c.World.ToolOutputs {
		c.World.ToolOutputs[i].Output = "scribbled"
	}
	for _, d := range c.World.DNS {
		for i := range d.Addrs {
			d.Addrs[i] = netip.MustParseAddr("10.0.0.1")
		}
	}
	for i := range c.Steps {
		st := &c.Steps[i]
		for j := range st.Op.Args {
			st.Op.Args[j] = "scribbled"
		}
		for j := range st.Comment {
			st.Comment[j] = "scribbled"
		}
		if st.Expect != nil {
			st.Expect.Data = "scribbled"
		}
	}
	// Strict: Line, and Data without HasData, must not change either.
	if diff := cmp.Diff(*want, *orig, addrEqual); diff != "" {
		t.Fatalf("scribbling on the clone changed the original (-want +got):\n%s", diff)
	}
	if c.Equal(want) {
		t.Fatal("the scribbles did not take: the test checks nothing")
	}
	for what, n := range map[string]int{"comment": len(c.Comment), "fs_read": len(c.Grant.FSRead), "fs_write": len(c.Grant.FSWrite),
		"net": len(c.Grant.NetHosts), "tool": len(c.Grant.Tools), "file": len(c.World.Files), "link": len(c.World.Links),
		"route": len(c.World.Routes), "dns": len(c.World.DNS), "toolout": len(c.World.ToolOutputs), "step": len(c.Steps)} {
		if n == 0 {
			t.Errorf("testdata/messy.sbx has no %s: a Clone that shares that list would pass", what)
		}
	}
}
