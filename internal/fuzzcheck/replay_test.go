package fuzzcheck

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzfile"
)

// TestReplayCorpus judges, as FuzzScenario does, every file of the
// directories SBXFUZZ_REPLAY lists (colon-separated): a libFuzzer corpus
// that ClusterFuzzLite or fuzz/libfuzzer.sh grew, or go test -fuzz's, the
// layout read from each file. A finding fails it; a file that holds no
// input a go-118-fuzz-build target runs is skipped, as the target skips
// it. Without SBXFUZZ_REPLAY it is skipped. Under -coverpkg it says what
// a corpus covers (docs/clusterfuzzlite.md):
//
//	SBXFUZZ_REPLAY=$WORK/corpus/FuzzScenario:$WORK/seeds/FuzzScenario \
//	  go test -run TestReplayCorpus -coverpkg ./core,./internal/spec ./internal/fuzzcheck
func TestReplayCorpus(t *testing.T) {
	dirs := os.Getenv("SBXFUZZ_REPLAY")
	if dirs == "" {
		t.Skip("SBXFUZZ_REPLAY names no corpus directory")
	}
	judged, skipped := 0, 0
	for _, dir := range filepath.SplitList(dirs) {
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.IsDir() {
				continue
			}
			name := filepath.Join(dir, f.Name())
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			in, _, err := fuzzfile.ReadInput(b, 0)
			if errors.Is(err, fuzzfile.ErrNotInput) {
				skipped++
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := CheckScenario(in); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			judged++
		}
	}
	if judged == 0 {
		t.Fatalf("no input in %s (%d files skipped)", dirs, skipped)
	}
	t.Logf("%d inputs judged, %d files skipped", judged, skipped)
}
