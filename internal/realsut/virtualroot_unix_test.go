//go:build unix

package realsut

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

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
