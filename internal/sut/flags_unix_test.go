//go:build unix

package sut

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
)

// TestProfileFlags: the mcp: door's Target carries the flags that choose
// its profile again in a replay, however it was chosen (--profile or
// $SBXFUZZ_MCP_PROFILE): none for the default, a built-in by its name, a
// file by its absolute path; other doors carry none.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.json")
	if err := os.WriteFile(file, []byte(`{"name": "p", "read": {"tool": "cat"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	const door = "mcp:sh server.js"
	for _, tc := range []struct {
		name, profile, env string
		want               []string
	}{
		{door, "", "", nil},
		{door, "server-filesystem", "", nil},
		{door, "fast-filesystem-mcp", "", []string{"--profile", "fast-filesystem-mcp"}},
		{door, "", "desktop-commander", []string{"--profile", "desktop-commander"}},
		{door, "p.json", "", []string{"--profile", file}},
		{door, "", "p.json", []string{"--profile", file}},
		{"osroot", "fast-filesystem-mcp", "", nil},
		{"exec:sh sandbox.sh", "fast-filesystem-mcp", "", nil},
	} {
		t.Setenv(realsut.ProfileEnv, tc.env)
		target, err := LookupWith(tc.name, Options{Profile: tc.profile})
		if err != nil {
			t.Fatalf("%s, profile %q, $%s %q: %v", tc.name, tc.profile, realsut.ProfileEnv, tc.env, err)
		}
		if !slices.Equal(target.Flags, tc.want) {
			t.Errorf("%s, profile %q, $%s %q: Flags %q, want %q", tc.name, tc.profile, realsut.ProfileEnv, tc.env, target.Flags, tc.want)
		}
	}
}

// TestFetchServerProfile: the mcp: door with an MCP fetch server's profile
// (one with an "mcp" field) is the door that judges connections (SPEC
// §14), named mcp:COMMAND and replayed with the same profile; a file
// server's profile keeps the file door; each profile refuses the other
// door by name.
func TestFetchServerProfile(t *testing.T) {
	defer func(was struct{ process, disk, network func() error }) { doorSupport = was }(doorSupport)
	doorSupport.network = func() error { return nil }
	dir := t.TempDir()
	write := func(name, text string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	fetch := write("fetch.json", `{"name": "f", "mcp": {"tool": "fetch"}}`)
	files := write("files.json", `{"name": "p", "read": {"tool": "cat"}}`)
	bad := write("bad.json", `{"name": "f", "mcp": {"tool": "fetch"}, "listen": "127.0.0.1:1"}`)
	t.Setenv(realsut.ProfileEnv, "")

	target, err := LookupWith("mcp:sh server.js", Options{Profile: fetch})
	if err != nil {
		t.Fatal(err)
	}
	if _, judgesEgress := target.NotApplicable["no-internal-egress"]; target.Name != "mcp:sh server.js" || judgesEgress || !slices.Equal(target.Flags, []string{"--profile", fetch}) {
		t.Errorf("a fetch server: %q, n/a %v, flags %q; want mcp:sh server.js judged on its egress, --profile %s", target.Name, target.NotApplicable, target.Flags, fetch)
	}
	if target, err = LookupWith("mcp:sh server.js", Options{Profile: files}); err != nil {
		t.Fatal(err)
	}
	if _, fileDoor := target.NotApplicable["no-internal-egress"]; !fileDoor {
		t.Errorf("a file server: n/a %v, want the file door's (no-internal-egress n/a)", target.NotApplicable)
	}
	for _, tc := range []struct{ name, profile, want string }{
		{"proxy:sh proxy.sh", fetch, "give --sut mcp:sh proxy.sh"},
		{"mcp:sh server.js", bad, "mode and listen are a proxy's"},
	} {
		if _, err := LookupWith(tc.name, Options{Profile: tc.profile}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s, profile %s: %v, want an error saying %q", tc.name, tc.profile, err, tc.want)
		}
	}
}

// TestMCPProfileErrors: an mcp: door's --profile that is neither a file
// nor a built-in profile lists the built-in ones (a proxy's is named as
// such); a misspelt fetch server's profile says which fields are whose;
// the command a profile puts first is the one that must be on PATH.
func TestMCPProfileErrors(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.json")
	if err := os.WriteFile(typo, []byte(`{"name": "f", "args": ["--allow"], "mpc": {"tool": "fetch"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	py := filepath.Join(dir, "py.json")
	if err := os.WriteFile(py, []byte(`{"name": "f", "command": ["sh"], "mcp": {"tool": "fetch"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(realsut.ProfileEnv, "")
	defer func(was struct{ process, disk, network func() error }) { doorSupport = was }(doorSupport)
	doorSupport.network = func() error { return nil }
	for _, tc := range []struct{ name, profile, want string }{
		{"mcp:sh s.js", "nosuch", "nor a built-in profile of the mcp: door (file servers: server-filesystem"},
		{"mcp:sh s.js", "nosuch", "fetch servers: kazuph-mcp-fetch"},
		{"mcp:sh s.js", "tinyproxy", "is a proxy's: give --sut proxy:"},
		{"mcp:sh s.js", typo, `a fetch server's has an "mcp" field`},
		{"mcp:no-such-program-here", py, ""}, // sh, the profile's command, runs it
		{"mcp:no-such-program-here", "", "cannot start no-such-program-here"},
	} {
		_, err := LookupWith(tc.name, Options{Profile: tc.profile})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s, profile %q: %v, want %q", tc.name, tc.profile, err, tc.want)
		}
	}
}
