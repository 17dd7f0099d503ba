package sbxcli_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/sbxcli"
)

// TestBuiltinNamesRefused: no registered name may shadow a built-in door
// of --sut; the refusal is exit 2 with the command line's error prefix.
func TestBuiltinNamesRefused(t *testing.T) {
	for _, name := range []string{"", "reference", "osroot", "mutant:mine", "exec:mine", "mcp:mine", "proxy:mine"} {
		var stderr bytes.Buffer
		st := sbxcli.Run([]string{"version"}, io.Discard, &stderr, map[string]core.Factory{name: newSandbox})
		if st != 2 || !strings.HasPrefix(stderr.String(), "sbxfuzz: cannot register a sandbox as "+`"`+name+`"`) {
			t.Errorf("registering %q: status %d, stderr %q; want 2 and a refusal", name, st, stderr.String())
		}
	}
	var stdout bytes.Buffer
	if st := sbxcli.Run([]string{"version"}, &stdout, io.Discard, map[string]core.Factory{"osroot-mine": newSandbox}); st != 0 || !strings.HasPrefix(stdout.String(), "sbxfuzz ") {
		t.Errorf("a name that only starts like a built-in one: status %d, stdout %q", st, stdout.String())
	}
}
