package scenario

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
			if !bytes.Equal(got, want) {
				t.Errorf("Format(%s) differs from %s:\n--- got\n%s--- want\n%s", file, golden, got, want)
			}
			s2 := mustParse(t, golden, want)
			if !s.Equal(s2) {
				t.Errorf("%s parses to a different scenario than %s", golden, file)
			}
			if again := s2.Format(); !bytes.Equal(again, want) {
				t.Errorf("%s is not canonical:\n%s", golden, again)
			}
		})
	}
}
