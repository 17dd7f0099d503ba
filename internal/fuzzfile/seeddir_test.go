package fuzzfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSeedDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b", EncodeGoFuzz([]byte("second")))
	write("a", EncodeGoFuzz([]byte("first\x00")))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	seeds, err := ReadSeedDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) != 2 || string(seeds[0]) != "first\x00" || string(seeds[1]) != "second" {
		t.Errorf("ReadSeedDir = %q; want [first\\x00 second]", seeds)
	}
	write("c", []byte("not a corpus file"))
	if _, err := ReadSeedDir(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "c")) {
		t.Errorf("ReadSeedDir with a bad file: %v; want an error naming it", err)
	}
	if _, err := ReadSeedDir(filepath.Join(dir, "missing")); err == nil {
		t.Error("ReadSeedDir of a missing directory: no error")
	}
}
