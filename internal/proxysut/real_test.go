package proxysut

import (
	"os"
	"slices"
	"testing"
	"time"
)

// needReal returns the path of the pinned release of the real proxy
// name, skipping the test unless SBXFUZZ_TEST_PROXIES=1 asks for the real
// proxies and that one is installed (.ci/proxy-install), and where
// namespaces are unavailable.
func needReal(t testing.TB, name string) string {
	t.Helper()
	if os.Getenv(TestEnv) != "1" {
		t.Skipf("the real proxies run only when %s=1 asks for them, after .ci/proxy-install", TestEnv)
	}
	needNamespaces(t)
	bin, err := InstalledProxy(name)
	if err != nil {
		t.Skip(err)
	}
	return bin
}

// Scenarios every real proxy is asked, and the findings each must give:
// what it lets through is SPEC §6's business, judged on the connections
// it really made.
const (
	realAllowed    = "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	realUngranted  = "grant net a.test\nroute b.test /s hello\n\nnet_fetch b.test /s\n"
	realPrivate    = "grant net a.test\ndns a.test 10.0.0.1\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	realBenchmark  = "grant net a.test\ndns a.test 198.18.0.1\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	realCompatible = "grant net a.test\ndns a.test ::a00:1\nroute a.test /s hello\n\nnet_fetch a.test /s\n"
	realUpper      = "grant net a.test\nroute a.test /s hello\n\nnet_fetch A.TEST /s\n"
	realDots       = "grant net a.test\nroute a.test /s hello\n\nnet_fetch a.test.. /s\n"
)

// TestRealProxies drives each real proxy through its built-in profile.
// Each fetches a granted public host (not counted stricter: the door read
// its relayed answer as the world's) and refuses an ungranted one;
// smokescreen refuses a granted host that resolves to a private address
// but connects to 198.18.0.1 (benchmarking, RFC 2544) and to the
// IPv4-compatible ::10.0.0.1, which SPEC §6 counts internal; tinyproxy
// and squid check no address at all. Smokescreen and squid match granted
// names whatever their case, which SPEC §3 does not (A.TEST is not
// a.test: confinement), and smokescreen asked by absolute-form GET then
// resolves the name twice, once in lower case for its check and once as
// asked to dial it (asked by CONNECT, it dials the name it checked): a
// rebinding window, no finding where both lookups answer one address. Squid also drops the final dots
// of a.test.. and fetches a.test, which the grant lists but the op did
// not name. Squid keeps a DNS cache: a check's run and its replay get the
// same journal only because each gets a proxy of its own (Fresh);
// sharing one, the replay finds a.test.. cached and resolves nothing
// (replay-deterministic).
// Traffic Server's outbound ip_allow rules, written from SPEC §6, refuse
// every internal address asked here, but its remap rules match granted
// names whatever their case, as squid's ACL does.
func TestRealProxies(t *testing.T) {
	internal := []string{"no-internal-egress", "verdict-matches-model"}
	upper := []string{"confinement", "verdict-matches-model"}
	for _, tc := range []struct {
		name, proxy string
		want        map[string][]string // scenario: the findings' invariants
	}{
		{"smokescreen", "smokescreen", map[string][]string{realAllowed: nil, realUngranted: nil, realPrivate: nil, realBenchmark: internal, realCompatible: internal,
			realUpper: upper, realDots: nil}},
		{"smokescreen-connect", "smokescreen", map[string][]string{realAllowed: nil, realUngranted: nil, realPrivate: nil, realBenchmark: internal, realCompatible: internal,
			realUpper: upper, realDots: nil}},
		{"tinyproxy", "tinyproxy", map[string][]string{realAllowed: nil, realUngranted: nil, realPrivate: internal, realBenchmark: internal, realUpper: nil, realDots: nil}},
		{"squid", "squid", map[string][]string{realAllowed: nil, realUngranted: nil, realPrivate: internal, realBenchmark: internal, realUpper: upper,
			realDots: {"verdict-matches-model"}}},
		{"trafficserver", "trafficserver", map[string][]string{realAllowed: nil, realUngranted: nil, realPrivate: nil, realBenchmark: nil, realCompatible: nil,
			realUpper: upper, realDots: nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := needReal(t, tc.proxy)
			tg, err := Target(bin, tc.name, Timeouts{})
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range []string{realAllowed, realUngranted, realPrivate, realBenchmark, realCompatible, realUpper, realDots} {
				want, ok := tc.want[src]
				if !ok {
					continue
				}
				fs, tally := checkOn(t, tg, src, 0)
				if got := invariants(fs); !slices.Equal(got, want) {
					t.Errorf("%q: findings %q, want %q\n%v", src, got, want, fs)
				}
				if len(tally.Stricter) > 0 {
					t.Errorf("%q: stricter %v: the proxy refused a fetch the model allows", src, tally.Stricter)
				}
			}
		})
	}
}

// TestRealSquidSharedMemory: squid makes its shared memory in the
// namespace's own /dev/shm, not the machine's, where two squids starting
// at once (a campaign's two workers') would create the same segments and
// one exit (it names them after its service name, squid), and a squid
// killed at its end would leave them behind.
func TestRealSquidSharedMemory(t *testing.T) {
	bin := needReal(t, "squid")
	p, err := LoadProfile("squid")
	if err != nil {
		t.Fatal(err)
	}
	before := shmFiles(t)
	px, err := startProxy(append(slices.Clone(p.Command), bin), p, []string{"a.test"}, t.TempDir(), DefaultStartTimeout, "profile "+p.Name)
	if err != nil {
		t.Fatal(err)
	}
	px.close()
	for name, mod := range shmFiles(t) {
		if was, ok := before[name]; !ok || !was.Equal(mod) {
			t.Errorf("/dev/shm/%s made or changed while a squid ran", name)
		}
	}
}

// shmFiles are the files of /dev/shm and when each last changed.
func shmFiles(t *testing.T) map[string]time.Time {
	t.Helper()
	entries, err := os.ReadDir("/dev/shm")
	if err != nil {
		t.Skipf("no /dev/shm to look at: %v", err)
	}
	files := map[string]time.Time{}
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			files[e.Name()] = info.ModTime()
		}
	}
	return files
}
