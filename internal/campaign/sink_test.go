package campaign

import (
	"fmt"
	"os"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestSinkKeepsFindingsApartByText: two findings of one invariant are two,
// written to two files, though a shorter hash once named them alike; the
// same finding recorded twice is one.
func TestSinkKeepsFindingsApartByText(t *testing.T) {
	mk := func(n uint64) *finding.Finding {
		sc, err := scenario.Parse("x", []byte(fmt.Sprintf("grant fs_read /work/\nfile /work/a x\nfs_read /outside/%x\n", n*0x9E3779B97F4A7C15)))
		if err != nil {
			t.Fatal(err)
		}
		return &finding.Finding{Invariant: oracle.Confinement, Minimized: sc, Original: sc, Origin: "seed 1"}
	}
	dir := t.TempDir()
	stop := newStopper()
	defer stop.release()
	s := newSink(sut.Static(sut.Reference, core.ReferenceFactory), "", 1, dir, stop, 0, 0)
	s.mu.Lock()
	s.record(raw{check: 1}, mk(47441), false)
	s.record(raw{check: 2}, mk(104537), false)
	s.record(raw{check: 3}, mk(47441), false)
	s.mu.Unlock()
	s.close()
	found, _, err := s.result()
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(found) != 2 || len(ents) != 2 {
		t.Fatalf("%d findings, %d files; want the two findings, each in its file", len(found), len(ents))
	}
}
