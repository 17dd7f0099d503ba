package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDirectoryGivenForAFileOfData: a directory given to import or to
// report --from is exit 2 with one line that names it, and that does not
// advise DIR/..., which those take for a file name and do not find.
func TestDirectoryGivenForAFileOfData(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"import", "--out", t.TempDir(), dir},
		{"report", "--from", dir},
	} {
		st, _, errs := run(t, args...)
		if st != ExitUsage || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, dir+": is a directory") {
			t.Errorf("%s: status %d, stderr %q; want 2 and one line saying %s is a directory", args[0], st, errs, dir)
		}
		if strings.Contains(errs, filepath.Join(dir, "...")) {
			t.Errorf("%s: %q advises %s, which %s cannot read", args[0], errs, filepath.Join(dir, "..."), args[0])
		}
	}
}
