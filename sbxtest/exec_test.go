package sbxtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/proc"
)

// TestExecRefusesWhatCannotStart: a command whose program cannot be
// started at all — not on $PATH, no such file, not executable — is Exec's
// error, naming the program, before any scenario: a mistake in the test,
// not a sandbox that failed a check (it was a total finding on the first
// scenario, minimized and saved as the sandbox's reproducer).
func TestExecRefusesWhatCannotStart(t *testing.T) {
	if err := proc.Supported(); err != nil {
		t.Skip("a sandbox in another process:", err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "sandbox.py")
	if err := os.WriteFile(plain, []byte("print('hi')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Executable, but the system cannot run them: an interpreter that is
	// not there, and no #! line at all (exec format error).
	noInterpreter, noShebang := filepath.Join(dir, "sandbox.sh"), filepath.Join(dir, "sandbox.txt")
	if err := os.WriteFile(noInterpreter, []byte("#!/no/such/interpreter\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noShebang, []byte("print('hi')\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"sbxfuzz-no-such-program --flag", "/no/such/binary", plain, noInterpreter, noShebang} {
		program, _, _ := strings.Cut(command, " ")
		f, stop, err := Exec(command)
		if err == nil {
			stop()
			t.Errorf("Exec(%q) = a factory (%v), no error; want one saying it cannot start %s", command, f != nil, program)
			continue
		}
		if !strings.Contains(err.Error(), program) {
			t.Errorf("Exec(%q): %v; want an error naming %s", command, err, program)
		}
	}
}
