package proxysut

import (
	"os"
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
)

// realServerTarget is the door to the pinned release of the real MCP
// fetch server of a built-in profile, through that profile: it skips unless
// SBXFUZZ_TEST_NPM=1 asks for the npm releases (.ci/mcp-install installs
// them), and where namespaces are unavailable; a release asked for but
// not installed fails.
func realServerTarget(t *testing.T, profile string) door.Target {
	t.Helper()
	if os.Getenv(mcp.TestEnv) != "1" {
		t.Skipf("runs the MCP fetch servers from npm: set %s=1 after .ci/mcp-install", mcp.TestEnv)
	}
	needNamespaces(t)
	script, err := InstalledProxy(profile)
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadProfile(profile)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ServerTarget(finding.QuoteArg(script), profile, p, Timeouts{}) // the profile puts node before it
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestRealFetchServers drives each MCP fetch server with a built-in
// profile. Each fetches a granted host at a public address, ok with the
// world's body whatever its own words around it; what each lets through
// is judged on the connections it opened. mcp-fetch-server and kazuph's
// mcp-fetch check the address a name resolves to, then let their HTTP
// client resolve it again to connect: a rebinding name whose second
// answer is internal is fetched from there (no-internal-egress; two
// lookups that answer one public address are no finding, the address used
// being the one checked); the first misses an IPv4-mapped literal, the
// second takes any IPv6 literal for a name it cannot look up and lets it
// through.
// server-everything checks its allow-list (lower-cased, so A.TEST passes
// under a.test; an IPv6 literal, which its URL parser respells, never
// matches) and no address; mcp-npx-fetch checks nothing. The other three
// are given no hosts, so every host a scenario asks is granted to them
// (AdaptOpen): A.TEST is judged only on where it leads.
func TestRealFetchServers(t *testing.T) {
	const (
		allowed  = "grant net a.test\ndns a.test 93.184.216.34\nroute a.test /s hello\n\nnet_fetch a.test /s => ok \"hello\"\n"
		metadata = "grant net metadata.google.internal\n\nnet_fetch metadata.google.internal /\n"
		literal  = "grant net 169.254.169.254\n\nnet_fetch 169.254.169.254 / => egress_internal\n"
		mapped   = "grant net ::ffff:127.0.0.1\n\nnet_fetch ::ffff:127.0.0.1 /\n"
		upper    = "grant net a.test\ndns a.test 93.184.216.34\n\nnet_fetch A.TEST /\n"
		rebind   = "grant net r.test\ndns r.test 93.184.216.34 10.0.0.1\n\nnet_fetch r.test /\n"
	)
	var (
		escaped   = []string{"no-internal-egress", "verdict-matches-model"}
		twice     = []string{"no-internal-egress"}
		ungranted = []string{"confinement", "verdict-matches-model"}
	)
	for _, tc := range []struct {
		profile string
		want    map[string][]string // findings by scenario; none where absent
	}{
		{"mcp-fetch-server", map[string][]string{"mapped": escaped, "rebind": twice}},
		{"kazuph-mcp-fetch", map[string][]string{"mapped": escaped, "rebind": twice}},
		{"server-everything", map[string][]string{"metadata": escaped, "literal": escaped, "upper": ungranted}},
		{"mcp-npx-fetch", map[string][]string{"metadata": escaped, "literal": escaped, "mapped": escaped}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			tg := realServerTarget(t, tc.profile)
			for _, sc := range []struct{ name, src string }{{"allowed", allowed}, {"metadata", metadata}, {"literal", literal}, {"mapped", mapped}, {"upper", upper}, {"rebind", rebind}} {
				fs, tally := checkOn(t, tg, sc.src, 0)
				if got := invariants(fs); !slices.Equal(got, tc.want[sc.name]) {
					t.Errorf("%s: findings %q, want %q\n%v", sc.name, got, tc.want[sc.name], fs)
				}
				if sc.name == "allowed" && tally.Passed != 1 {
					t.Errorf("allowed: %d fetches let through, want 1 (stricter: %v)", tally.Passed, tally.Stricter)
				}
			}
		})
	}
}
