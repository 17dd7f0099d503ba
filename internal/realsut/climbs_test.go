package realsut

import (
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// TestClimbsCountsWhatASandboxDecodes: a sandbox that decodes or
// normalizes a path after its check climbs with the ".." it makes, and
// one that climbs past the moat lands on the machine (R14: forty
// "%2e%2e/" made a file above the tree). Such a path is not asked, and
// the bridge never sends it.
func TestClimbsCountsWhatASandboxDecodes(t *testing.T) {
	for _, tc := range []struct {
		p    string
		want int
	}{
		{"/w/../x", 1},
		{"/w/data.txt", 0},
		{"/w/%2e%2e/x", 1},
		{"/w/%252e%252e/%2e./x", 2},
		{"/w/\uff0e\uff0e/\u2025/x", 2},
		{"/w/\xc0\xae\xc0\xae\xc0\xafx", 1},
		{"/w/%zz%2e%2e/x", 1},
		{"/w/" + strings.Repeat("%2e%2e/", 40) + "etc", 40},
	} {
		if got := climbs(tc.p); got != tc.want {
			t.Errorf("climbs(%q) = %d, want %d", tc.p, got, tc.want)
		}
	}
	deep := core.Op{Kind: core.OpRead, Args: []string{"/w/" + strings.Repeat("%2e%2e/", MaxDots+1) + "etc/hostname"}}
	if askable(deep) {
		t.Errorf("%s is asked: a sandbox that decodes it climbs %d levels, past the moat", deep.Args[0], MaxDots+1)
	}
}
