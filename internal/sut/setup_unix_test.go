//go:build unix

package sut

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLookupRefusesWhatCannotStart: an exec: or mcp: command whose program
// cannot be started at all — no such file, not on $PATH, not executable,
// no #! line, a #! interpreter missing —
// is refused by Lookup, in one line naming the --sut value and the reason,
// before any scenario: the sandbox could not be set up (exit 2), it did
// not fail a check.
func TestLookupRefusesWhatCannotStart(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "sandbox.py")
	if err := os.WriteFile(plain, []byte("print('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Executable, but the system cannot run them: no #! line, and an
	// interpreter its #! line names that is not there.
	noShebang, noInterpreter := filepath.Join(dir, "sandbox.txt"), filepath.Join(dir, "sandbox.sh")
	if err := os.WriteFile(noShebang, []byte("print('hi')\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noInterpreter, []byte("#!/no/such/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"exec:" + noShebang, "exec:" + noShebang + ": "},
		{"exec:" + noInterpreter, "the interpreter its #! line names is not there"},
		{"exec:/no/such/binary", "exec:/no/such/binary: cannot start /no/such/binary: "},
		{"exec:sbxfuzz-no-such-program --flag", "cannot start sbxfuzz-no-such-program: "},
		{"exec:" + plain, "cannot start " + plain + ": permission denied"},
		{"mcp:/no/such/binary server.js", "mcp:/no/such/binary server.js: cannot start /no/such/binary: "},
	} {
		_, err := Lookup(tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Lookup(%q): %v, want one line saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := Lookup("exec:sh -c true"); err != nil {
		t.Errorf("Lookup of a program on $PATH: %v", err)
	}
}

// TestProxyStartedByItsProfilesCommand: a proxy script a profile starts
// with an interpreter ("command": ["python3"]) need not be executable
// itself, as an mcp: server's need not; without that profile it must.
func TestProxyStartedByItsProfilesCommand(t *testing.T) {
	if err := supported("proxy:", doorSupport.process, doorSupport.network); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "proxy.py")
	profile := filepath.Join(dir, "p.json")
	if err := os.WriteFile(script, []byte("print('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(profile, []byte(`{"name": "py", "command": ["sh"], "args": ["{{listen}}"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LookupWith("proxy:"+script, Options{Profile: profile}); err != nil {
		t.Errorf("a script its profile starts with sh: %v", err)
	}
	if _, err := LookupWith("proxy:"+script, Options{}); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("the same script, by itself: %v, want permission denied", err)
	}
}

// TestExecNamedFromAnywhere: an exec: child's relative script is named by
// its absolute path, so that a finding's reproduce line replays it from
// any directory; a command with nothing relative keeps its words.
func TestExecNamedFromAnywhere(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("child.sh", []byte("exit 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("child.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"exec:sh child.sh", "exec:sh " + script},
		{"exec:sh -c true", "exec:sh -c true"},
	} {
		got, err := Lookup(tc.name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", tc.name, err)
		}
		if got.Name != tc.want {
			t.Errorf("Lookup(%q).Name = %q, want %q", tc.name, got.Name, tc.want)
		}
	}
}
