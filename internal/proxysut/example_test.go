package proxysut_test

import (
	"context"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// target is the door to the example proxy, by its --sut name, with
// profile.
func target(t *testing.T, profile string) sut.Target {
	t.Helper()
	bin := proxysut.BuiltExample(t)
	tg, err := sut.LookupWith(proxysut.Prefix+bin, sut.Options{Profile: profile})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestExampleClean: a short campaign against the example proxy, a
// correct one, finds nothing, asking it for absolute-form GETs and for
// CONNECTs alike.
func TestExampleClean(t *testing.T) {
	for _, profile := range []string{"", "egressproxy-connect"} {
		res, err := campaign.Run(context.Background(), campaign.Config{Seed: 1, Checks: 150, Workers: 2, Target: target(t, profile)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Checks == 0 || res.Coverage.Ops == 0 {
			t.Errorf("profile %q: %d checks, %d ops: nothing was asked", profile, res.Checks, res.Coverage.Ops)
		}
		for _, f := range res.Findings {
			t.Errorf("profile %q: check %d: %s", profile, f.Check, f.MinDetail)
		}
	}
}

// TestExampleDefects: each defect of the example proxy is found within
// 2,000 checks, with a reproducer minimized to one op; two for "twice",
// which is caught fetching the internal answer of a rebinding name that
// an op before it moved on (its lookups that all answer one address are
// no finding).
func TestExampleDefects(t *testing.T) {
	if testing.Short() {
		t.Skip("campaigns against five proxies: not in -short")
	}
	for _, defect := range []string{"name", "twice", "cgnat", "mapped", "suffix"} {
		t.Run(defect, func(t *testing.T) {
			t.Setenv("EGRESSPROXY_DEFECT", defect) // the proxy inherits the harness's environment
			res, err := campaign.Run(context.Background(), campaign.Config{Seed: 1, Checks: 2000, Workers: 2, StopAtFirst: true, Target: target(t, "")})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Findings) == 0 {
				t.Fatalf("no finding in %d checks", res.Checks)
			}
			f := res.Findings[0]
			most := 1
			if defect == "twice" {
				most = 2
			}
			if n := len(f.Minimized.Steps); n > most {
				t.Errorf("check %d: %s minimized to %d ops, want at most %d", f.Check, f.Invariant, n, most)
			}
			t.Logf("check %d: %s: %s", f.Check, f.Invariant, f.MinDetail)
		})
	}
}
