package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/proxysut"
)

// TestProfilePrintsWhatReadsBack: every built-in profile printed by
// "profile NAME" reads back, as a --profile file, as the profile itself;
// "profile" lists every name; an unknown name is a usage error that
// lists them.
func TestProfilePrintsWhatReadsBack(t *testing.T) {
	for _, name := range mcp.BuiltinNames() {
		st, out, errs := run(t, "profile", name)
		if st != ExitOK {
			t.Fatalf("profile %s: status %d: %s", name, st, errs)
		}
		got, err := mcp.ParseProfile([]byte(out))
		if err != nil {
			t.Fatalf("profile %s printed what does not read: %v\n%s", name, err, out)
		}
		want, _ := mcp.LookupProfile(name)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("profile %s read back (-built-in +printed):\n%s", name, diff)
		}
	}
	for _, name := range append(proxysut.BuiltinNames(), proxysut.ServerNames()...) {
		st, out, errs := run(t, "profile", name)
		if st != ExitOK {
			t.Fatalf("profile %s: status %d: %s", name, st, errs)
		}
		got, err := proxysut.ParseProfile([]byte(out))
		want, _ := proxysut.LoadProfile(name)
		if err != nil || got.Name != name || !cmp.Equal(want, got, cmpopts.EquateEmpty()) {
			t.Errorf("profile %s read back as %+v (%v), want the built-in one", name, got, err)
		}
	}
	_, out, _ := run(t, "profile")
	for _, name := range append(mcp.BuiltinNames(), append(proxysut.BuiltinNames(), proxysut.ServerNames()...)...) {
		if !strings.Contains(out, name) {
			t.Errorf("profile lists no %s:\n%s", name, out)
		}
	}
	if st, _, errs := run(t, "profile", "nope"); st != ExitUsage || !strings.Contains(errs, "server-filesystem") {
		t.Errorf("profile nope: status %d, %q: want 2 and the names", st, errs)
	}
}
