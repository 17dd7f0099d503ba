package refworld

import (
	"net/netip"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestPeekResolve: PeekResolve answers what the next Resolve will, for a
// rebinding line and a name without one, and neither journals nor moves
// the line on, however often it is asked.
func TestPeekResolve(t *testing.T) {
	first, second := netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("10.0.0.5")
	w := New(scenario.WorldSpec{DNS: []scenario.DNSRecord{{Host: "r.test", Addrs: []netip.Addr{first, second}}}})
	for _, want := range []netip.Addr{first, second, first} {
		for range 3 {
			if got := w.PeekResolve("R.test."); got != want {
				t.Fatalf("PeekResolve = %v, want %v", got, want)
			}
		}
		if got := w.Resolve("r.test"); got != want {
			t.Fatalf("Resolve after PeekResolve = %v, want %v", got, want)
		}
	}
	if got := w.PeekResolve("127.1"); got != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("PeekResolve(127.1) = %v, want 127.0.0.1", got)
	}
	if n := w.JournalLen(); n != 3 {
		t.Errorf("the journal holds %d entries, want the 3 resolves only", n)
	}
}
