//go:build unix

package realsut

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestLateChangeJudged: a change the sandbox makes after an op's after
// observation (a server that writes once it has answered) is journaled at
// the next op, whether or not the harness changes the tree before that op
// (a missing parent it makes) or after the one before (its own write of
// an op the sandbox's answer did not decide).
func TestLateChangeJudged(t *testing.T) {
	sc, err := scenario.Parse("t.sbx", []byte(world))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, first, second string }{
		{"no harness change", "/work/a.txt", "/work/out/x"},
		{"a parent the harness makes", "/work/a.txt", "/work/out/newdir/x"},
		{"the harness's own write", "/work/out/w", "/work/out/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A sandbox that cannot express a write to /work/out/w: the
			// harness writes it.
			a := withDefect(func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
				if op.Kind == core.OpWrite && op.Args[0] == "/work/out/w" {
					return realfs.Outcome{Verdict: realfs.Unsupported}, nil
				}
				return out, nil
			})
			f, end, err := a.Start()
			if err != nil {
				t.Fatal(err)
			}
			defer end()
			w := refworld.New(sc.World)
			sb, err := f(must.Grant(sc.Grant), w)
			if err != nil {
				t.Fatal(err)
			}
			defer sb.(interface{ Close() error }).Close()
			b := sb.(*bridge)
			b.Run(core.Op{Kind: core.OpRead, Args: []string{tc.first}})
			if tc.name == "the harness's own write" {
				if _, ok := w.Lookup("/work/out/w"); ok {
					t.Fatal("the harness's write is there before the op")
				}
				b.Run(core.Op{Kind: core.OpWrite, Args: []string{"/work/out/w", "w"}})
				if data, _ := os.ReadFile(filepath.Join(b.tree.Root(), "work/out/w")); string(data) != "w" {
					t.Fatalf("the harness did not write /work/out/w for the sandbox: %q", data)
				}
			}
			// The sandbox, after its answer, writes beside T.
			if err := os.WriteFile(filepath.Join(b.tree.Root(), "..", "late"), []byte("escaped"), 0o644); err != nil {
				t.Fatal(err)
			}
			b.Run(core.Op{Kind: core.OpWrite, Args: []string{tc.second, "y"}})
			if _, journaled := w.Lookup("/../late"); !journaled {
				t.Errorf("the write beside T, made after the last op, was not journaled at fs_write %s", tc.second)
			}
		})
	}
}

// TestCopiedSecretJudged: a sandbox that copies, or hard-links, a file
// the grant forbids reading into a write root leaked it, though its answer
// says nothing: confinement is violated.
func TestCopiedSecretJudged(t *testing.T) {
	for _, tc := range []struct {
		name, ops string
		defect    func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error)
	}{
		{"copied on a read", "fs_read /work/a.txt\n", func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
			b, err := os.ReadFile(onDisk(d, "/etc/secret"))
			if err == nil {
				err = os.WriteFile(onDisk(d, "/work/out/copy"), b, 0o644)
			}
			return out, err
		}},
		{"hard-linked on a write", "fs_write /work/out/x y\n", func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
			return out, os.Link(onDisk(d, "/etc/secret"), onDisk(d, "/work/out/copy"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := invariants(check(t, withDefect(tc.defect), world+tc.ops))
			if !slices.Contains(got, "confinement") {
				t.Errorf("findings %v, want confinement", got)
			}
		})
	}
}

// TestFilledTreeIsTotal: a sandbox that fills its tree past what an
// observation holds (sparse files cost it no disk) is a total finding
// that says so, with the numbers.
func TestFilledTreeIsTotal(t *testing.T) {
	fill := func(d *defective, op core.Op, out realfs.Outcome) (realfs.Outcome, error) {
		for i := range realfs.MaxObserved/realfs.MaxInline + 16 {
			f, err := os.Create(onDisk(d, fmt.Sprintf("/work/out/s%06d", i)))
			if err != nil {
				return out, err
			}
			err = errors.Join(f.Truncate(realfs.MaxInline), f.Close())
			if err != nil {
				return out, err
			}
		}
		return out, nil
	}
	// The op writes thousands of files, and the harness reads them after
	// it: on a busy machine that takes seconds, none of which is a hang.
	got := checkWithin(t, withDefect(fill), world+"fs_read /work/a.txt\n", 5*time.Minute)
	if !slices.ContainsFunc(got, func(f oracle.Finding) bool {
		return f.Invariant.String() == "total" && strings.Contains(f.Detail, "filled its tree past what the harness reads") && strings.Contains(f.Detail, "bytes")
	}) {
		t.Errorf("findings %v, want a total one that says the tree was filled past what the harness reads", got)
	}
}
