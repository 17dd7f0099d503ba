package campaign

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
)

// FileName is the name a finding is written under: its invariant and a
// hash of its minimized text, so the same finding always lands in the same
// file and two different ones never collide by accident.
func (f *Finding) FileName() string {
	h := fnv.New32a()
	h.Write(f.Minimized.Format())
	return fmt.Sprintf("%s-%08x.sbx", f.Invariant, h.Sum32())
}

// Annotate writes the finding's header comment into its minimized
// scenario: the invariant, the explanation, where it came from, how much it
// shrank, and the command that reproduces it at path.
func (f *Finding) Annotate(seed uint64, sut, path string) {
	expl := f.MinDetail
	if f.MinStep > 0 {
		expl = fmt.Sprintf("step %d: %s", f.MinStep, expl)
	}
	f.Minimized.Comment = []string{
		"finding: " + f.Invariant.String(),
		wrap(expl),
		fmt.Sprintf("sandbox: %s; seed %d, check %d; class of the violating op: %s", sut, seed, f.Check, f.Class),
		fmt.Sprintf("minimized from %d ops to %d (%d candidates tried); expectations are the reference sandbox's results",
			len(f.Original.Steps), len(f.Minimized.Steps), f.Calls),
		fmt.Sprintf("reproduce: sbxfuzz replay --sut %s %s", sut, filepath.ToSlash(path)),
	}
}

// wrap keeps one comment entry per line: newlines in an explanation become
// spaces.
func wrap(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// WriteFindings writes every finding of res to dir as annotated .sbx files,
// each atomically, and returns their paths. A file that already exists
// with the same text is left alone.
func WriteFindings(dir string, res *Result, sut string) ([]string, error) {
	if len(res.Findings) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for i := range res.Findings {
		f := &res.Findings[i]
		name := f.FileName() // before Annotate: the name hashes the scenario, not its comment
		p := filepath.Join(dir, name)
		f.Annotate(res.Seed, sut, p)
		if err := fsutil.WriteAtomic(p, f.Minimized.Format(), 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
