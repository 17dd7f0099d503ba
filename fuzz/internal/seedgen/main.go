// Command seedgen writes the committed seed corpora of sbxfuzz's fuzz
// targets (seedFiles): every corpus scenario becomes a FuzzScenario
// and a FuzzParse seed. Run it with go generate ./fuzz; with -libfuzzer DIR
// it also writes the seeds of the []byte targets (FuzzScenario, FuzzParse)
// in the libFuzzer layout of go-118-fuzz-build, to DIR/<Target>/, for
// ClusterFuzzLite's seed corpus zips and fuzz/libfuzzer.sh.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/fuzzfile"
)

func main() {
	corpus := flag.String("corpus", "../corpus", "the directory of .sbx scenarios")
	out := flag.String("out", ".", "the fuzz directory, below which the go test fuzz v1 seeds go (seedPath; empty: do not write them)")
	lib := flag.String("libfuzzer", "", "also write the []byte targets' seeds, in the go-118-fuzz-build libFuzzer layout, to DIR/<Target>/")
	flag.Parse()
	if err := run(*corpus, *out, *lib); err != nil {
		fmt.Fprintln(os.Stderr, "seedgen:", err)
		os.Exit(1)
	}
}

func run(corpus, out, lib string) error {
	files, err := seedFiles(corpus)
	if err != nil {
		return err
	}
	if out != "" {
		if err := writeSeeds(out, files); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "seedgen: %d seed files below %s\n", len(files), out)
	}
	if lib == "" {
		return nil
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if strings.HasPrefix(name, seedPath("FuzzScenario", "")+"/") || strings.HasPrefix(name, seedPath("FuzzParse", "")+"/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		in, _, err := fuzzfile.ReadInput(files[name], fuzzfile.LayoutGoFuzz)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		p := filepath.Join(lib, filepath.Base(filepath.Dir(name)), filepath.Base(name)) // DIR/<Target>/<seed>
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, fuzzfile.EncodeLibFuzzer(in), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "seedgen: %d libFuzzer seeds below %s\n", len(names), lib)
	return nil
}
