//go:build unix

package realsut

import (
	"os"
	"path/filepath"
	"slices"
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
	profile := filepath.Join(t.TempDir(), "cwd.json")
	if err := os.WriteFile(profile, []byte(cwdProfile), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ProfileEnv, profile)
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
		a, err := MCP(fakeMCP(t, mode))
		if err != nil {
			t.Fatal(err)
		}
		a.TreeDir = filepath.Join(t.TempDir(), "trees")
		f, end, err := a.Start()
		if err != nil {
			t.Fatal(err)
		}
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
			c, err := judge.NewCase(adapted)
			if err != nil {
				t.Fatal(err)
			}
			got := invariants(judge.Check(f, c, nil, judge.Options{Timeout: time.Minute}))
			want := tc.prefixBug
			if mode == "cwd" {
				want = ""
			}
			if len(got) > 0 && got[0] != want || len(got) == 0 && want != "" {
				t.Errorf("%s: %q: findings %v, want %q first", mode, tc.ops, got, want)
			}
		}
		if err := end(); err != nil {
			t.Error(err)
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
