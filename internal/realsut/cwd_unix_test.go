//go:build unix

package realsut

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// cwdProfile is a profile of the fake server's "cwd" modes, shaped as
// @shtse8/filesystem-mcp is: its directory is its working directory,
// paths go relative to it in lists, and answers are JSON lists in a
// successful result.
const cwdProfile = `{"name": "cwd", "cwd": true,
	"read": {"tool": "read_content", "path": "paths[]", "result": {"json": "[].content"}},
	"write": {"tool": "write_content", "path": "items[].path", "content": "items[].content"},
	"refusals": ["\"error\": "], "denied": ["Access denied", "Absolute paths are not allowed"], "not_found": ["File not found"]}`

const cwdWorld = `grant fs_read /srv/app/
file /srv/app/a.txt hello
file /srv/appshop/secret "shop secret"
file /etc/secret "top secret"
link /srv/app/ln /etc/secret
`

// TestServerOnItsWorkingDirectory: a server that works on its working
// directory is started there and sent relative paths that climb out of
// it with ".."; scenario after scenario of one session it keeps working
// there, the tree keeping that directory, and is started afresh when the
// directory changes (the fake asks getcwd at every call, which fails in a
// directory removed since). One that checks paths
// correctly has no finding; one that checks them as
// @shtse8/filesystem-mcp 0.5.8 does, a string prefix of the joined path,
// reads a prefix sibling and a file outside through a link.
func TestServerOnItsWorkingDirectory(t *testing.T) {
	cases := []struct {
		ops       string
		prefixBug string // the first finding's invariant under the prefix check
	}{
		{"fs_read /srv/app/a.txt\nfs_write /srv/app/new.txt data\nfs_read /srv/app/new.txt\n", ""},
		{"fs_read /srv/appshop/secret\n", "confinement"},
		{"fs_read /srv/app/ln\n", "confinement"},
		{"fs_read /etc/secret\nfs_write /srv/app/./b.txt x\n", ""},
		{"grant fs_read /data/\nfile /data/x y\nfs_read /data/x\n", ""},
		{"fs_read /srv/app/a.txt\n", ""},
		{"", ""}, // /data/ the first root: another directory
		{"fs_read /srv/app/a.txt\n", ""},
	}
	for _, mode := range []string{"cwd", "cwdprefix"} {
		a, check := cwdSession(t, mode, "")
		for _, tc := range cases {
			src := cwdWorld + tc.ops
			if tc.ops == "" {
				src = "grant fs_read /data/\nfile /data/x y\nfile /srv/app/a.txt z\nfs_read /data/x\nfs_read /srv/app/a.txt\n"
			}
			sc, err := scenario.Parse("t.sbx", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			adapted := a.Adapt(sc)
			if adapted == nil || len(adapted.Steps) != len(sc.Steps) {
				t.Fatalf("%s: %q adapted to %v", mode, tc.ops, adapted)
			}
			if len(adapted.Grant.FSRead) != 1 || !slices.Equal(adapted.Grant.FSRead, adapted.Grant.FSWrite) {
				t.Errorf("%s: the adapted grant %+v, want one root for reads and writes", mode, adapted.Grant)
			}
			got := check(src)
			want := tc.prefixBug
			if mode == "cwd" {
				want = ""
			}
			if len(got) > 0 && got[0] != want || len(got) == 0 && want != "" {
				t.Errorf("%s: %q: findings %v, want %q first", mode, tc.ops, got, want)
			}
		}
	}
}

// TestCwdRootMustBeADirectory: a grant whose root has a file at it or
// above it cannot be a working directory: such a scenario is not sent.
func TestCwdRootMustBeADirectory(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "cwd.json")
	if err := os.WriteFile(profile, []byte(cwdProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ProfileEnv, profile)
	a, err := MCP("server")
	if err != nil {
		t.Fatal(err)
	}
	for src, sent := range map[string]bool{
		"grant fs_read /srv/app/\nfs_read /srv/app/a\n":                          true,
		"grant fs_read /srv/app/\nfile /srv/app x\nfs_read /srv/app/a\n":         false,
		"grant fs_read /srv/app/\nfile /srv y\nfs_read /srv/app/a\n":             false,
		"grant fs_read /srv/app/\nfile /srv/application z\nfs_read /srv/app/a\n": true,
	} {
		sc, err := scenario.Parse("t.sbx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Adapt(sc) != nil; got != sent {
			t.Errorf("%q sent: %v, want %v", src, got, sent)
		}
	}
}

// cwdSession starts a session of the fake server in mode under cwdProfile
// with env added to it, and returns a function that checks a scenario,
// adapted as a campaign adapts it, and returns its findings' invariants.
func cwdSession(t *testing.T, mode, env string) (Adapter, func(src string) []string) {
	t.Helper()
	a := profiled(t, mode, strings.Replace(cwdProfile, `"cwd": true,`, `"cwd": true, "env": {`+env+`},`, 1))
	f, end, err := a.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { end() })
	return a, func(src string) []string {
		sc, err := scenario.Parse("t.sbx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		adapted := a.Adapt(sc)
		if adapted == nil {
			t.Fatalf("%q is not sent", src)
		}
		c, err := judge.NewCase(adapted)
		if err != nil {
			t.Fatal(err)
		}
		return invariants(judge.Check(f, c, nil, judge.Options{Timeout: time.Minute}))
	}
}

// TestCwdServerKeptAndReplaced: a server on its working directory serves
// scenario after scenario while the tree keeps its directory (one start
// per slot, the run's and the replay's), and is started afresh when a
// sandbox replaced that directory between two scenarios (mv, mkdir: the
// fake asks getcwd at every call, which fails in the directory gone).
func TestCwdServerKeptAndReplaced(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	a, check := cwdSession(t, "cwd", `"FAKE_STARTS": "`+starts+`"`)
	src := cwdWorld + "fs_read /srv/app/a.txt\n"
	for range 4 {
		if got := check(src); len(got) != 0 {
			t.Fatalf("findings %v", got)
		}
	}
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "\n")
	}
	if n := count(); n > 3 { // the probe, then one server per slot
		t.Errorf("%d servers started for 4 scenarios on one directory, want at most 3", n)
	}
	var roots []string
	filepath.WalkDir(a.TreeDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.HasSuffix(p, "/t/srv/app") {
			roots = append(roots, p)
		}
		return nil
	})
	if len(roots) == 0 {
		t.Fatal("no root directory found in the trees")
	}
	for _, r := range roots {
		if err := os.Rename(r, r+".old"); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(r, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := check(src); len(got) != 0 {
		t.Errorf("after the directory was replaced: findings %v, want none", got)
	}
}

// TestCwdVerdictWhateverTheName: the relative path a server echoes is cut
// out of its error text only where it stands as a word, so a link named
// "e" is judged as one named "x" (a dangling link out of the root that
// the prefix-checking fake follows, answering "File not found").
func TestCwdVerdictWhateverTheName(t *testing.T) {
	_, check := cwdSession(t, "cwdprefix", "")
	for _, name := range []string{"x", "e", "d"} {
		src := "grant fs_read /srv/app/\nfile /srv/app/a.txt hello\nlink /srv/app/" + name + " /etc/missing\nfs_read /srv/app/" + name + "\n"
		if got := check(src); len(got) == 0 || got[0] != "verdict-matches-model" {
			t.Errorf("a link named %q: findings %v, want verdict-matches-model", name, got)
		}
	}
}

// virtualProfile is a profile of the fake server's "virtual" mode, whose
// paths are those of a namespace with its first directory as "/", and
// which refuses every path with a ".." segment.
const virtualProfile = `{"name": "virtual", "virtual_root": true,
	"read": {"tool": "read_file", "path": "path"}, "write": {"tool": "write_file", "path": "path", "content": "content"},
	"denied": ["Path traversal not allowed", "Access denied"], "not_found": ["ENOENT"]}`

// TestServerInAVirtualRoot: a server that takes paths under its
// directory as those of a namespace of its own is sent "/a.txt" for a
// file of its root and "/../appshop/secret" for a sibling: one that
// checks them has no finding, the grant keeping its first root. Without
// virtual_root it is sent the world's paths, which it finds nowhere.
func TestServerInAVirtualRoot(t *testing.T) {
	src := `grant fs_read /srv/app/
grant fs_read /data/
file /srv/app/a.txt hello
file /srv/appshop/secret "shop secret"
file /etc/secret "top secret"
link /srv/app/ln /etc/secret

fs_read /srv/app/a.txt
fs_write /srv/app/new.txt data
fs_read /srv/app/new.txt
fs_read /srv/appshop/secret
fs_read /srv/app/ln
fs_write /srv/app/./b.txt x
`
	for _, tc := range []struct {
		profile string
		want    []string
	}{
		{virtualProfile, nil},
		{strings.Replace(virtualProfile, `"virtual_root": true,`, "", 1), []string{"verdict-matches-model"}},
	} {
		dir := t.TempDir()
		profile := filepath.Join(dir, "virtual.json")
		if err := os.WriteFile(profile, []byte(tc.profile), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv(ProfileEnv, profile)
		a, err := MCP(fakeMCP(t, "virtual"))
		if err != nil {
			t.Fatal(err)
		}
		a.TreeDir = filepath.Join(dir, "trees")
		f, end, err := a.Start()
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenario.Parse("t.sbx", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		adapted := a.Adapt(sc)
		if adapted == nil || len(adapted.Grant.FSRead) != 1 && tc.want == nil {
			t.Fatalf("adapted to %+v", adapted)
		}
		c, err := judge.NewCase(adapted)
		if err != nil {
			t.Fatal(err)
		}
		got := invariants(judge.Check(f, c, nil, judge.Options{Timeout: time.Minute}))
		end()
		if len(got) > 0 {
			got = got[:1]
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("profile %s: findings %v, want first %v", tc.profile, got, tc.want)
		}
	}
}
