package fuzzfile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// ReadSeedDir returns the inputs of the go test fuzz v1 files in dir, in
// the order of their names: a seed corpus another fuzz target shares
// (f.Add each), so that one corpus serves both and is generated once.
func ReadSeedDir(dir string) ([][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var seeds [][]byte
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() {
			continue
		}
		file, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		in, _, err := ReadInput(file, LayoutGoFuzz)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, e.Name()), err)
		}
		seeds = append(seeds, slices.Clip(in))
	}
	return seeds, nil
}
