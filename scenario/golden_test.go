package scenario

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the canonical printer")

// TestGolden formats every testdata/*.sbx and compares the text with
// testdata/NAME.golden; -update rewrites the goldens. The golden must
// itself be canonical and parse to the same scenario.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.sbx")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.sbx files")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".sbx")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s := mustParse(t, file, src)
			got := s.Format()
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("Format(%s) mismatch with %s (-want +got):\n%s", file, golden, diff)
			}
			s2 := mustParse(t, golden, want)
			if !s.Equal(s2) {
				t.Errorf("%s parses to a different scenario than %s", golden, file)
			}
			if diff := cmp.Diff(string(want), string(s2.Format())); diff != "" {
				t.Errorf("%s is not canonical: Format(Parse(%[1]s)) mismatch (-want +got):\n%s", golden, diff)
			}
		})
	}
}
