//go:build unix

package realsut

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/generators"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// jailWorld is the grant and the files every killer of TestJailServers
// starts from: one directory, a file in it, and /etc/passwd outside.
const jailWorld = "grant fs_read /w/\ngrant fs_write /w/\nfile /w/data.txt hello\nfile /etc/passwd root\n"

// TestJailServers drives testdata/jailmcp.py, an MCP server with
// server-filesystem's tools and words, jailed the ways Python servers jail
// their paths, through the default profile. Each defect is a real
// violation of SPEC §13: a hand-written scenario kills it with the
// invariant it breaks (the cache's in two scenarios on one server, since
// what it keeps goes stale only when the world changes), and the correct
// jail passes it. Each correct jail (one that resolves and checks, one
// that walks with O_NOFOLLOW and refuses every link, one that checks a
// relative path for "..", refusing names that begin so) passes a short
// run of generated scenarios with no finding.
func TestJailServers(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the jailed MCP server is a Python script")
	}
	script, err := filepath.Abs("testdata/jailmcp.py")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(ProfileEnv, "")
	adapter := func(t *testing.T, mode string) Adapter {
		a, err := MCP(py + " " + script + " " + mode)
		if err != nil {
			t.Fatal(err)
		}
		a.TreeDir = filepath.Join(t.TempDir(), "trees")
		return a
	}
	for _, tc := range []struct {
		mode, why string
		killers   []string // scenarios judged in turn on one session
		want      oracle.ID
	}{
		{"onehop", "reads a final link's target once: a link to a link out passes",
			[]string{"file /etc/shadow s\nlink /w/ln-hop ln-hop2\nlink /w/ln-hop2 /etc/shadow\n\nfs_read /w/ln-hop\n"}, oracle.Confinement},
		{"nofollow", "checks the path as written and opens it with O_NOFOLLOW, which guards the last name only",
			[]string{"link /w/d /etc\n\nfs_read /w/d/passwd\n"}, oracle.Confinement},
		{"percent", "decodes percent escapes after its check",
			[]string{"\nfs_read /w/%2e%2e/etc/passwd\n"}, oracle.Confinement},
		{"trimafter", "strips white space from the path after its check: the link under the stripped name is opened",
			[]string{"link /w/ln /etc/passwd\n\nfs_read \"/w/ln \"\n"}, oracle.Confinement},
		{"bslash", `turns "\" into "/" after its check, for Windows' sake`,
			[]string{"\nfs_read /w/..\\etc\\passwd\n"}, oracle.Confinement},
		{"nfc", "composes the path (NFC) after its check: a link under the composed name is opened",
			[]string{"link \"/w/\u00c5\" /etc/passwd\n\nfs_read \"/w/A\u030a\"\n"}, oracle.Confinement},
		{"regexroot", `matches its roots as regular expressions, "." unescaped`,
			[]string{"grant fs_read /opt/tool.d/\nfile /opt/tool.d/a x\nfile /opt/toolXd/secret s\n\nfs_read /opt/toolXd/secret\n"}, oracle.Confinement},
		{"backup", "copies what it overwrites beside it, where a link may lead out",
			[]string{"link /w/data.txt.bak /etc/passwd\n\nfs_write /w/data.txt new\n"}, oracle.Confinement},
		{"nfkc", "normalizes the path (NFKC) after its check: fullwidth dots become ..",
			[]string{"\nfs_read /w/\uff0e\uff0e/etc/passwd\n"}, oracle.Confinement},
		{"newnocheck", "resolves a path that exists and takes a new one as written",
			[]string{"link /w/ln-out /etc/sbx-out\n\nfs_write /w/ln-out x\n"}, oracle.Confinement},
		{"cache", "keeps each path's resolution for its life: the link the next world puts there is followed",
			[]string{"\nfs_read /w/ln\n", "link /w/ln /etc/passwd\n\nfs_read /w/ln\n"}, oracle.Confinement},
		{"atomicraw", "renames a temporary file over the path asked: the link is replaced, its target never written",
			[]string{"link /w/ln-in data.txt\n\nfs_write /w/ln-in new\n"}, oracle.VerdictMatchesModel},
		{"existfirst", "looks a path up before its allow-list: a missing file outside is said not found",
			[]string{"\nfs_read /etc/nothing\n"}, oracle.VerdictMatchesModel},
		{"openfirst", "opens (and truncates) a file before it checks where the handle leads",
			[]string{"link /w/ln /etc/passwd\n\nfs_write /w/ln x\n"}, oracle.Confinement},
		{"urlpath", "checks the path a URL parser reads, a query cut off, and opens the path asked",
			[]string{"file /w?x=1/secret s\n\nfs_read /w?x=1/secret\n"}, oracle.Confinement},
		{"multiline", "matches its roots with a regular expression whose anchors match at each line",
			[]string{"\nfs_read \"/w\\n/x\"\n"}, oracle.VerdictMatchesModel},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			if got := killed(t, adapter(t, tc.mode), tc.killers); !slices.ContainsFunc(got, func(f oracle.Finding) bool { return f.Invariant == tc.want }) {
				t.Errorf("a server that %s: findings %v, want %s", tc.why, invariants(got), tc.want)
			}
			// The killer convicts the defect, not the harness: the
			// correct jail passes it.
			if got := killed(t, adapter(t, "strict"), tc.killers); len(got) > 0 {
				t.Errorf("the correct jail, on the killer of %s: findings %v, want none", tc.mode, invariants(got))
			}
		})
	}
	for _, mode := range []string{"strict", "walk", "relpath"} {
		t.Run(mode, func(t *testing.T) {
			a := adapter(t, mode)
			f, end, err := a.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer end()
			g := generators.NewGenerator()
			g.FixRoots(0)
			for i := range jailChecks {
				sc := a.Adapt(g.Generate(generators.NewSource(1, uint64(i))).Clone())
				if sc == nil {
					continue
				}
				c, err := judge.NewCase(sc)
				if err != nil {
					t.Fatal(err)
				}
				if got := judge.Check(f, c, nil, judge.Options{Timeout: patienceOp}); len(got) > 0 {
					t.Fatalf("check %d: a correct jail (%s) convicted: %v", i, mode, got[0].Detail)
				}
			}
		})
	}
}

// killed judges the scenarios of srcs, each on jailWorld, in turn on one
// session of a, and returns the findings of the last.
func killed(t *testing.T, a Adapter, srcs []string) []oracle.Finding {
	t.Helper()
	f, end, err := a.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	var got []oracle.Finding
	for _, src := range srcs {
		c, err := judge.NewCase(parse(t, jailWorld+src))
		if err != nil {
			t.Fatal(err)
		}
		got = judge.Check(f, c, nil, judge.Options{Timeout: patienceOp})
	}
	return got
}

// jailChecks is how many generated scenarios each correct jail of
// TestJailServers is judged on: enough to meet links out, loops and
// prefix siblings, few enough to stay a test, not a campaign (the
// campaigns a gap hunt runs are much longer).
const jailChecks = 20

// patienceOp bounds one op of the jailed server: reached only when the
// test fails.
const patienceOp = 30 * time.Second
