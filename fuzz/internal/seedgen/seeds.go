package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzdecode"
	"github.com/sbxfuzz/sbxfuzz/internal/fuzzfile"
)

// Seed files are named by what they come from, so that regenerating them
// rewrites the same files: "sbx-<path>" for a corpus scenario (its path
// below the corpus directory, '/' as '-', without ".sbx"), "seed-<what>"
// for the others. Files with other names — the crashers go test -fuzz
// writes, named by hash — are never touched.
const (
	corpusSeedPrefix = "sbx-"
	otherSeedPrefix  = "seed-"
)

// seedFiles returns the seed corpora of the fuzz targets, keyed by their
// path below the fuzz directory ("testdata/fuzz/FuzzScenario/sbx-classes-traversal",
// seedPath), each a go test fuzz v1 file:
//
//   - FuzzScenario: every .sbx file below corpusDir as a ModeText input
//     (fuzzdecode.CompactSeed), and a few arena- and generated-mode inputs;
//   - FuzzParse: every .sbx file as it is;
//   - FuzzPaths, FuzzResolve: the examples of SPEC §4 and §6;
//   - FuzzProperty: a few rapid bitstreams.
//
// The output depends only on the corpus: go generate ./fuzz writes it, and
// a test checks that the committed files are up to date.
func seedFiles(corpusDir string) (map[string][]byte, error) {
	scenarios, err := corpusFiles(corpusDir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	from := map[string]string{} // seed name → the corpus file it was named for
	for _, rel := range scenarios {
		text, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		name := corpusSeedPrefix + strings.ReplaceAll(strings.TrimSuffix(rel, ".sbx"), "/", "-")
		if other, ok := from[name]; ok {
			return nil, fmt.Errorf("%s and %s both name the seed %s: rename one", other, rel, name)
		}
		from[name] = rel
		seed, err := fuzzdecode.CompactSeed(path.Join(filepath.Base(filepath.Clean(corpusDir)), rel), text)
		if err != nil {
			return nil, err
		}
		out[seedPath("FuzzScenario", name)] = fuzzfile.EncodeGoFuzz(seed)
		out[seedPath("FuzzParse", name)] = fuzzfile.EncodeGoFuzz(text)
	}
	for i, in := range byteSeeds(0x5eed, 8, 160) {
		out[seedPath("FuzzScenario", fmt.Sprintf("%sarena-%d", otherSeedPrefix, i))] = fuzzfile.EncodeGoFuzz(append([]byte{byte(i), byte(i * 8)}, in...))
		if i < 4 {
			out[seedPath("FuzzScenario", fmt.Sprintf("%sgenerated-%d", otherSeedPrefix, i))] = fuzzfile.EncodeGoFuzz(append([]byte{fuzzdecode.GeneratedStart + byte(i)}, in...))
			out[seedPath("FuzzProperty", fmt.Sprintf("%sbits-%d", otherSeedPrefix, i))] = fuzzfile.EncodeGoFuzz(in)
		}
	}
	for i, pr := range pathSeeds {
		out[seedPath("FuzzPaths", fmt.Sprintf("%sspec-%02d", otherSeedPrefix, i))] = fuzzfile.EncodeGoFuzz(pr[0], pr[1])
	}
	for i, s := range resolveSeeds {
		out[seedPath("FuzzResolve", fmt.Sprintf("%sspec-%02d", otherSeedPrefix, i))] = fuzzfile.EncodeGoFuzz(s)
	}
	return out, nil
}

// seedPath is where the seed name of target goes, below the fuzz
// directory: testdata/fuzz/<target>/name, as go test -fuzz reads it.
func seedPath(target, name string) string { return path.Join("testdata/fuzz", target, name) }

// uncommittedDir is the directory below the corpus that git ignores: a
// user who writes findings there with run --out must not change the seeds
// that a test compares with the committed ones.
const uncommittedDir = "findings"

// corpusFiles lists the .sbx files below dir, as slash-separated paths
// relative to it, sorted, leaving out uncommittedDir.
func corpusFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir && d.Name() == uncommittedDir {
			return fs.SkipDir
		}
		if err != nil || d.IsDir() || filepath.Ext(p) != ".sbx" {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("%s: no .sbx files", dir)
	}
	slices.Sort(out)
	return out, err
}

// byteSeeds returns n inputs of size bytes from a fixed PCG stream.
func byteSeeds(seed uint64, n, size int) [][]byte {
	r := rand.New(rand.NewPCG(seed, 0))
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, size)
		for j := range out[i] {
			out[i][j] = byte(r.Uint32())
		}
	}
	return out
}

// pathSeeds are the path and newline-separated roots of SPEC §4's examples.
var pathSeeds = [][2]string{
	{"/work/../etc", "/work/"},
	{`\work\..\etc`, "/work"},
	{"/work/..hidden", "/work/"},
	{"/work/te..st/...", "/work"},
	{"/workshop/x", "/work/"},
	{"/work2", "/work"},
	{"/work.bak/x", "/work\n/data/"},
	{"/etc/passwd", "/"},
	{"/work/./x", "//work//"},
	{"//work//x/", "/work/."},
	{"/work/%2e%2e/x", "/work"},
	{"/work/\uff0e\uff0e/x", "/work"},
	{"work/x", "work"},
	{"", ""},
	{"../a/..", "."},
}

// resolveSeeds are the inet_aton spellings of SPEC §6 and their edges.
var resolveSeeds = []string{
	"127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "0x7f.0.0.1",
	"09.1.1.1", "1.2.3.4.5", "256.1.1.1", "0x", "1..1", "1.2.3.",
	"1.2.3.4 junk", "127.1\tevil.com", "4294967295", "4294967296", "1.16777216", "0x100.1",
}

// writeSeeds writes files (as seedFiles returns them) below dir, first
// removing the seed files of every target it writes that are no longer
// generated. Crashers and other files are left alone.
func writeSeeds(dir string, files map[string][]byte) error {
	targets := map[string]bool{}
	for name := range files {
		targets[filepath.Dir(filepath.FromSlash(name))] = true
	}
	for t := range targets {
		tdir := filepath.Join(dir, t)
		if err := os.MkdirAll(tdir, 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(tdir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			n := e.Name()
			stale := strings.HasPrefix(n, corpusSeedPrefix) || strings.HasPrefix(n, otherSeedPrefix)
			if _, keep := files[filepath.ToSlash(filepath.Join(t, n))]; stale && !keep {
				if err := os.Remove(filepath.Join(tdir, n)); err != nil {
					return err
				}
			}
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
