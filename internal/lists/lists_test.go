package lists

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestCopy4: equal contents, no memory shared with the inputs, and no list
// that an append can spill into the next.
func TestCopy4(t *testing.T) {
	a, b, c, d := []string{"/work/"}, []string(nil), []string{"api.internal", "x"}, []string{"echo"}
	got := Copy4(a, b, c, d)
	// Equal contents; that the empty list stays nil is checked next.
	if diff := cmp.Diff([4][]string{a, b, c, d}, got, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("Copy4 mismatch (-want +got):\n%s", diff)
	}
	if got[1] != nil {
		t.Errorf("an empty list came back %#v, want nil", got[1])
	}
	got[0][0], got[2][1] = "/", "widened"
	if a[0] != "/work/" || c[1] != "x" {
		t.Errorf("writing into the copies changed the inputs: %q %q", a, c)
	}
	got[0] = append(got[0], "spill")
	if got[2][0] != "api.internal" {
		t.Errorf("appending to one copy wrote into the next: %q", got[2])
	}
	if n := testing.AllocsPerRun(100, func() { Copy4(a, b, c, d) }); n != 1 {
		t.Errorf("Copy4 made %v allocations, want 1", n)
	}
}
