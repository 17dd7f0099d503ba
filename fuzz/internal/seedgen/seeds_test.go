package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeedsUpToDate: the committed seed corpora are what go generate
// ./fuzz writes from the corpus, so every corpus scenario is a FuzzScenario
// and a FuzzParse seed.
func TestSeedsUpToDate(t *testing.T) {
	want, err := seedFiles("../../../corpus")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join("../..", filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("fuzz/%s is missing or stale (%v): run go generate ./fuzz", name, err)
		}
	}
	committed, err := filepath.Glob("../../testdata/fuzz/*/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range committed {
		name := filepath.ToSlash(strings.TrimPrefix(p, filepath.Join("..", "..")+string(filepath.Separator)))
		base := filepath.Base(p)
		generated := strings.HasPrefix(base, corpusSeedPrefix) || strings.HasPrefix(base, otherSeedPrefix)
		if _, ok := want[name]; generated && !ok {
			t.Errorf("fuzz/%s is no longer generated: run go generate ./fuzz", name)
		}
	}
	scenarios, err := filepath.Glob("../../../corpus/*/*.sbx")
	if err != nil || len(scenarios) == 0 {
		t.Fatalf("no corpus scenarios: %v", err)
	}
	for _, s := range scenarios {
		rel := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(s), "../../../corpus/"), ".sbx")
		if _, ok := want[seedPath("FuzzScenario", corpusSeedPrefix+strings.ReplaceAll(rel, "/", "-"))]; !ok {
			t.Errorf("%s is not a FuzzScenario seed", s)
		}
	}
}

// TestCorpusFilesSkipFindings: findings a user wrote into the corpus's
// ignored findings directory are not corpus files, at any depth but the top.
func TestCorpusFilesSkipFindings(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"a.sbx", "classes/b.sbx", uncommittedDir + "/c.sbx", uncommittedDir + "/x/d.sbx"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("fs_read /x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := corpusFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a.sbx classes/b.sbx"; strings.Join(got, " ") != want {
		t.Errorf("corpusFiles = %q, want %q", got, want)
	}
	// A corpus directory that is itself named findings is still read.
	got, err = corpusFiles(filepath.Join(dir, uncommittedDir))
	if err != nil || len(got) != 2 {
		t.Errorf("corpusFiles(findings) = %q, %v; want its 2 files", got, err)
	}
}

// TestSeedNamesCollide: two corpus files whose paths name the same seed
// ('/' and '-' both become '-') are an error, not one seed silently
// written over the other.
func TestSeedNamesCollide(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"a/b-c.sbx", "a-b/c.sbx"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("fs_read /"+rel+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := seedFiles(dir)
	if err == nil || !strings.Contains(err.Error(), "a/b-c.sbx") || !strings.Contains(err.Error(), "a-b/c.sbx") {
		t.Errorf("seedFiles of a corpus with a/b-c.sbx and a-b/c.sbx: error %v, %d files; want an error naming both", err, len(files))
	}
}

// TestWriteSeedsKeepsCrashers: writeSeeds writes the seeds it is given and
// removes the generated seeds of their targets it no longer generates, but
// leaves every other file alone: the crashers go test -fuzz wrote (named
// by hash) and the files of targets it does not write.
func TestWriteSeedsKeepsCrashers(t *testing.T) {
	dir := t.TempDir()
	existing := map[string]string{
		"testdata/fuzz/FuzzParse/sbx-gone":         "stale corpus seed",
		"testdata/fuzz/FuzzParse/seed-gone":        "stale other seed",
		"testdata/fuzz/FuzzParse/582528ddfad69eb5": "a crasher",
		"testdata/fuzz/FuzzOther/sbx-elsewhere":    "another target's seed",
	}
	for name, data := range existing {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeSeeds(dir, map[string][]byte{"testdata/fuzz/FuzzParse/sbx-new": []byte("new")}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"testdata/fuzz/FuzzParse/sbx-new":          "new",
		"testdata/fuzz/FuzzParse/sbx-gone":         "",
		"testdata/fuzz/FuzzParse/seed-gone":        "",
		"testdata/fuzz/FuzzParse/582528ddfad69eb5": "a crasher",
		"testdata/fuzz/FuzzOther/sbx-elsewhere":    "another target's seed",
	} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		switch {
		case want == "" && !os.IsNotExist(err):
			t.Errorf("%s: still there (%v), want it removed", name, err)
		case want != "" && string(got) != want:
			t.Errorf("%s: %q (%v), want %q", name, got, err, want)
		}
	}
}
