package proxysut_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestPythonGuards drives testdata/guardmcp.py, an MCP fetch server whose
// egress guard is written as real Python SSRF guards are, through the
// mcp: door with testdata/guardmcp.json (the grant's hosts in a file).
// Each defective guard is caught by a one-scenario killer on the
// invariant its defect breaks: an IPv4-only check that lets a name with
// no IPv4 answer through to its IPv6 one; a check followed by the HTTP
// client's own lookup; Python 3.11's ipaddress predicates (is_private and
// its kin miss the shared address space; is_global calls NAT64 global); a
// blocklist of strings; an allow-list folded to lower case, or read as
// regular expressions with their dots unescaped; a check's verdict kept
// per name while the client looks the name up again; a redirect followed
// with its Location checked by name only; 6to4 decoded from the last 32
// bits. Each
// correct guard (one lookup, every answer checked and the first dialled;
// the same with a lookup per family, or with a DNS client of its own that
// asks a fixed public resolver; following redirects, each hop checked and
// pinned) runs a short campaign with no finding.
func TestPythonGuards(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the guards are a Python script")
	}
	proxysut.NeedNamespaces(t)
	script, err := filepath.Abs("testdata/guardmcp.py")
	if err != nil {
		t.Fatal(err)
	}
	target := func(t *testing.T, guard string) door.Target {
		t.Helper()
		tg, err := sut.LookupWith("mcp:"+py+" "+script+" "+guard, sut.Options{Profile: "testdata/guardmcp.json"})
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	const rebind = "grant net r.test\ndns r.test 93.184.216.34 10.0.0.1\nroute r.test /s hello\n\nnet_fetch r.test /s\n"
	for _, tc := range []struct {
		guard, killer, want string
	}{
		{"v4check", "grant net n.test\ndns n.test fd00::1\n\nnet_fetch n.test /\n", "no-internal-egress"},
		{"recheck", rebind, "no-internal-egress"},
		{"isprivate", "grant net 100.64.0.1\n\nnet_fetch 100.64.0.1 /\n", "no-internal-egress"},
		{"isglobal", "grant net 64:ff9b::a9fe:a9fe\n\nnet_fetch 64:ff9b::a9fe:a9fe /\n", "no-internal-egress"},
		{"blocklist", "grant net 0x7f.1\n\nnet_fetch 0x7f.1 /\n", "no-internal-egress"},
		{"casefold", "grant net a.test\nroute a.test /s hello\n\nnet_fetch A.TEST /s\n", "confinement"},
		{"regexdot", "grant net api.example.com\nroute api-example.com /s hello\n\nnet_fetch api-example.com /s\n", "confinement"},
		{"checkcache", "grant net r.test\ndns r.test 93.184.216.34 93.184.216.34 10.0.0.1\nroute r.test /s hello\n\nnet_fetch r.test /s\nnet_fetch r.test /s\n", "no-internal-egress"},
		{"redirname", "grant net r.test\ndns r.test 93.184.216.34 10.0.0.1\nredirect r.test /go /s\nroute r.test /s hello\n\nnet_fetch r.test /go\n", "no-internal-egress"},
		{"sixtofour", "grant net 2002:a00:1::5db8:d70e\n\nnet_fetch 2002:a00:1::5db8:d70e /\n", "no-internal-egress"},
		// A guard that checks after it connected, on a redirect route: the
		// lookup after the fetch is no refused next hop (its Location is on
		// another host, or its answer public).
		{"afterconnect", "grant net r.test\ndns r.test 93.184.216.34 10.0.0.1\nredirect r.test /go http://evil.test/x\n\nnet_fetch r.test /go\n", "no-internal-egress"},
		{"afterconnect", "grant net r.test\ndns r.test 93.184.216.34 93.184.216.35\nredirect r.test /go /s\nroute r.test /s hello\n\nnet_fetch r.test /go\n", "no-internal-egress"},
	} {
		t.Run(tc.guard, func(t *testing.T) {
			fs := checkOne(t, target(t, tc.guard), tc.killer)
			if !slices.ContainsFunc(fs, func(f oracle.Finding) bool { return f.Invariant.String() == tc.want }) {
				t.Errorf("no %s finding: %v", tc.want, fs)
			}
			// The killer is the defect's: a correct guard passes it.
			if fs := checkOne(t, target(t, "pin"), tc.killer); len(fs) > 0 {
				t.Errorf("findings on the correct guard pin: %v", fs)
			}
		})
	}
	// A follower that looks the name up again for a same-host redirect's
	// next hop and refuses the internal answer is as correct as one that
	// never follows: redirname's killer is no finding on it.
	t.Run("followpin on redirname's killer", func(t *testing.T) {
		if fs := checkOne(t, target(t, "followpin"), "grant net r.test\ndns r.test 93.184.216.34 10.0.0.1\nredirect r.test /go /s\nroute r.test /s hello\n\nnet_fetch r.test /go\n"); len(fs) > 0 {
			t.Errorf("findings on a correct follower: %v", fs)
		}
	})
	// Its lookup for the next hop moves the rebinding name's line: the
	// next op's first lookup answers public where the model's one answers
	// inside, and its refusal of the hop after that is in time (H5: a
	// false verdict-matches-model at the second op).
	t.Run("followpin on a rebinding name twice", func(t *testing.T) {
		if fs := checkOne(t, target(t, "followpin"), "grant net rebind.example\nredirect rebind.example /go /\ndns rebind.example 93.184.215.7 127.0.0.1\n\nnet_fetch rebind.example /go\nnet_fetch rebind.example /go\n"); len(fs) > 0 {
			t.Errorf("findings on a correct follower: %v", fs)
		}
	})
	for _, guard := range []string{"pin", "perfamily", "ownresolver", "followpin"} {
		t.Run(guard, func(t *testing.T) {
			res, err := campaign.Run(context.Background(), campaign.Config{Seed: 1, Checks: 20, Workers: 1, Target: target(t, guard)})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				t.Errorf("check %d: %s: %s", f.Check, f.Invariant, f.MinDetail)
			}
		})
	}
}

// checkOne judges the scenario src on tg once, with a sandbox of its own.
func checkOne(t *testing.T, tg door.Target, src string) []oracle.Finding {
	t.Helper()
	sc, err := scenario.Parse("killer.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	n := tg.Narrow(sc)
	if n.Scenario == nil || len(n.Skipped) > 0 {
		t.Fatalf("the door cannot be asked all of the scenario: skipped steps %v", n.Skipped)
	}
	f, end, err := tg.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	fs, err := oracle.Check(f, n.Scenario, nil, oracle.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}
