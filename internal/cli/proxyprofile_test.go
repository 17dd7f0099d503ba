package cli

import (
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
)

// TestProxyProfileEnv: without --profile, the proxy: door reads its
// profile from $SBXFUZZ_PROXY_PROFILE and the mcp: door from
// $SBXFUZZ_MCP_PROFILE, neither from the other's; --profile wins over
// both. The reproduce flags say which profile was taken.
func TestProxyProfileEnv(t *testing.T) {
	if err := netns.Supported(); err != nil {
		t.Skip(err)
	}
	vars := map[string]string{realsut.ProfileEnv: "fast-filesystem-mcp", proxysut.ProfileEnv: "egressproxy-connect"}
	for _, tc := range []struct {
		sut, flag string
		want      []string
	}{
		{"proxy:/bin/true", "", []string{"--profile", "egressproxy-connect"}},
		{"mcp:/bin/true", "", []string{"--profile", "fast-filesystem-mcp"}},
		{"proxy:/bin/true", "egressproxy", nil},
	} {
		e := &env{getenv: func(k string) string { return vars[k] }, profile: tc.flag}
		tg, err := e.target(tc.sut)
		if err != nil {
			t.Errorf("%s --profile %q: %v", tc.sut, tc.flag, err)
			continue
		}
		if !slices.Equal(tg.Flags, tc.want) {
			t.Errorf("%s --profile %q: flags %q, want %q", tc.sut, tc.flag, tg.Flags, tc.want)
		}
	}
}
