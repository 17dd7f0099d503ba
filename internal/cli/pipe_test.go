//go:build unix

package cli

import (
	"context"
	"io/fs"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/campaign"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/replay"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/mutants"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// corpusFiles lists every committed scenario.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	filepath.WalkDir("../../corpus", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sbx") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	return files
}

// TestPipeEquivalence: through the pipe (sbxfuzz serve, SPEC §12), every
// corpus scenario gives the same results, usage and journal as in process,
// on the reference and on the mutant each mutants/ file kills.
func TestPipeEquivalence(t *testing.T) {
	bin := buildSbxfuzz(t)
	for _, file := range corpusFiles(t) {
		name := "reference"
		if rel, _ := filepath.Rel("../../corpus/mutants", file); !strings.HasPrefix(rel, "..") {
			name = "mutant:" + strings.TrimSuffix(rel, ".sbx")
		}
		t.Run(strings.TrimPrefix(file, "../../corpus/")+" on "+name, func(t *testing.T) {
			text, err := fsutil.ReadInput(file)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenario.Parse(file, text)
			if err != nil {
				t.Fatal(err)
			}
			local, err := sut.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			piped, err := sut.Lookup("exec:" + bin + " serve --sut " + name)
			if err != nil {
				t.Fatal(err)
			}
			want, got := replayOn(t, local, sc), replayOn(t, piped, sc)
			if diff := cmp.Diff(want, got, cmpopts.EquateComparable(netipAddr())); diff != "" {
				t.Fatalf("in process and through the pipe differ (-in process +pipe):\n%s", diff)
			}
		})
	}
}

// pipeTrace is what a replay observed: per step, the result, the usage and
// the journal entries; and the findings' invariants.
type pipeTrace struct {
	Steps    []string
	Journal  []refworld.Entry
	Findings []string
}

func replayOn(t *testing.T, target sut.Target, sc *scenario.Scenario) pipeTrace {
	t.Helper()
	f, end, err := target.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	out, err := replay.Run("x.sbx", sc, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tr pipeTrace
	for _, s := range out.Steps {
		tr.Steps = append(tr.Steps, strings.Join([]string{s.Result.Kind.String(), boolWord(s.Result.Hard), s.Result.Data,
			usageWords(s.Usage)}, " "))
	}
	tr.Journal = out.Journal()
	for _, f := range out.Findings {
		tr.Findings = append(tr.Findings, f.Invariant.String())
	}
	return tr
}

func boolWord(b bool) string {
	if b {
		return "hard"
	}
	return "soft"
}

func usageWords(u core.Usage) string {
	return strings.Join([]string{itoa(u.Ops), itoa(u.Wall), itoa(u.Output)}, "/")
}

// TestMutantsOverThePipe: every mutant served over the pipe is killed by
// a campaign, by the same invariant as in process.
func TestMutantsOverThePipe(t *testing.T) {
	bin := buildSbxfuzz(t)
	local := campaign.KillMutants(context.Background(), mutants.All(), 1, 500, 0)
	for _, k := range local {
		t.Run(k.Mutant, func(t *testing.T) {
			target, err := sut.Lookup("exec:" + bin + " serve --sut mutant:" + k.Mutant)
			if err != nil {
				t.Fatal(err)
			}
			// No mutant hangs: an op timeout far above what an op takes
			// keeps a busy machine's slow op from being the first finding.
			res, err := campaign.Run(context.Background(), campaign.Config{Seed: 1, Checks: 500, Workers: 1, Target: target, StopAtFirst: true, Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Findings) == 0 {
				t.Fatalf("not killed over the pipe in %d checks (in process: %s at check %d)", res.Checks, k.Invariant, k.Checks)
			}
			if got := res.Findings[0].Invariant.String(); got != k.Invariant {
				t.Errorf("killed by %s over the pipe, by %s in process", got, k.Invariant)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func netipAddr() netip.Addr { return netip.Addr{} }
