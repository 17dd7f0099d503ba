package proxysut_test

import (
	"context"
	"os"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// TestRealTinyproxyCampaign: tinyproxy, which checks no address, is
// found connecting to an internal one within a few checks, with a
// reproducer of one op, and is never a door failure (total) on the way.
// It runs only when SBXFUZZ_TEST_PROXIES=1 asks for the real proxies.
func TestRealTinyproxyCampaign(t *testing.T) {
	if os.Getenv(proxysut.TestEnv) != "1" {
		t.Skipf("the real proxies run only when %s=1 asks for them, after .ci/proxy-install", proxysut.TestEnv)
	}
	proxysut.NeedNamespaces(t)
	bin, err := proxysut.InstalledProxy("tinyproxy")
	if err != nil {
		t.Skip(err)
	}
	tg, err := sut.LookupWith(proxysut.Prefix+bin, sut.Options{Profile: "tinyproxy"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := campaign.Run(context.Background(), campaign.Config{Seed: 1, Checks: 200, Workers: 2, StopAtFirst: true, Target: tg})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatalf("no finding in %d checks", res.Checks)
	}
	f := res.Findings[0]
	if f.Invariant.String() != "no-internal-egress" || len(f.Minimized.Steps) != 1 {
		t.Errorf("check %d: %s minimized to %d ops, want no-internal-egress in 1: %s", f.Check, f.Invariant, len(f.Minimized.Steps), f.MinDetail)
	}
}
