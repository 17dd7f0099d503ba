package campaign

import (
	"context"
	"encoding/json"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/sut"
)

// sessions is a Target whose sessions are counted, and whose factories
// fail the test when one is called from two goroutines at once: what a
// sandbox behind a child process's pipe must never see.
type sessions struct {
	t             *testing.T
	build         core.Factory
	started, ends atomic.Int64
}

func (s *sessions) target() sut.Target {
	return sut.Target{Name: "sessions", Start: func() (core.Factory, func() error, error) {
		s.started.Add(1)
		var busy sync.Mutex
		f := func(g core.Grant, w core.World) (core.Sandbox, error) {
			if !busy.TryLock() {
				s.t.Error("a session's factory was called from two goroutines at once")
				return s.build(g, w)
			}
			defer busy.Unlock()
			return s.build(g, w)
		}
		return f, func() error { s.ends.Add(1); return nil }, nil
	}}
}

// TestSessionPerWorker: each worker starts a session of its own and ends
// it; minimizing findings takes one more session, and one fresh session
// for each invariant's distinct minimized scenario, to see that its file
// fails alone;
// every session is ended.
func TestSessionPerWorker(t *testing.T) {
	for _, tc := range []struct {
		name    string
		build   core.Factory
		workers int
		want    int64
	}{
		{"reference", core.ReferenceFactory, 2, 2},
		{"broken", readsEverything, 2, 3},
		{"broken, one worker", readsEverything, 1, 2},
	} {
		s := &sessions{t: t, build: tc.build}
		res, err := Run(context.Background(), Config{Seed: 1, Checks: 300, Workers: tc.workers, Target: s.target()})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Findings) > 0 {
			tc.want += int64(distinctMinimized(res.Findings))
		}
		if got := s.started.Load(); got != tc.want {
			t.Errorf("%s: %d sessions started, want %d (%d findings, %d raw)", tc.name, got, tc.want, len(res.Findings), res.Raw)
		}
		if s.ends.Load() != s.started.Load() {
			t.Errorf("%s: %d sessions started, %d ended", tc.name, s.started.Load(), s.ends.Load())
		}
	}
}

// distinctMinimized counts the distinct pairs of an invariant and a
// minimized scenario among fs: each is judged alone once.
func distinctMinimized(fs []Finding) int {
	texts := map[string]bool{}
	for _, f := range fs {
		texts[f.Invariant.String()+"\n"+string(f.Minimized.Format())] = true
	}
	return len(texts)
}

// TestRootBlock: a Target with a RootBlock is handed, for each block of
// that many scenarios, grants whose read roots come from one base, so a
// server started with its allowed directories serves the block; without
// one, every scenario draws its base.
func TestRootBlock(t *testing.T) {
	count := func(block int) int {
		var mu sync.Mutex
		sets := map[string]bool{}
		target := sut.Target{Name: "roots", RootBlock: block, Start: func() (core.Factory, func() error, error) {
			f := func(g core.Grant, w core.World) (core.Sandbox, error) {
				var roots []string // as a server is given them: canonical, sorted
				for _, r := range g.Spec().FSRead {
					roots = append(roots, path.Clean(r))
				}
				slices.Sort(roots)
				mu.Lock()
				sets[strings.Join(slices.Compact(roots), " ")] = true
				mu.Unlock()
				return core.ReferenceFactory(g, w)
			}
			return f, func() error { return nil }, nil
		}}
		if _, err := Run(context.Background(), Config{Seed: 1, Checks: 400, Workers: 2, Target: target}); err != nil {
			t.Fatal(err)
		}
		return len(sets)
	}
	fixed, drawn := count(1000), count(0)
	if fixed > 12 || drawn <= 2*fixed {
		t.Errorf("%d sets of read roots with a block of 1000 scenarios, %d without: want at most 12, and far fewer than without", fixed, drawn)
	}
}

// TestTalliesSummed: what the workers' sessions of a counting target
// counted (sut.Target.StartCounted) is summed into the result, read once
// each session ended, and reaches the summary and its JSON; a target that
// does not count leaves both empty.
func TestTalliesSummed(t *testing.T) {
	var started, endedFirst atomic.Int64
	target := sut.Target{Name: "counting", Start: func() (core.Factory, func() error, error) {
		t.Error("a counting target's sessions were started with Start")
		return core.ReferenceFactory, func() error { return nil }, nil
	}, StartCounted: func() (core.Factory, func() error, func() door.Tally, error) {
		started.Add(1)
		var ended atomic.Bool
		tally := func() door.Tally {
			if ended.Load() {
				endedFirst.Add(1)
			}
			return door.Tally{Stricter: map[string]int64{"other": 2, "dangling-write": 1}, SkippedLines: 3, Passed: 4, CountsPassed: true}
		}
		return core.ReferenceFactory, func() error { ended.Store(true); return nil }, tally, nil
	}}
	res, err := Run(context.Background(), Config{Seed: 1, Checks: 50, Workers: 2, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	if started.Load() != 2 || endedFirst.Load() != 2 {
		t.Fatalf("%d sessions started, %d tallies read after their end; want 2 and 2", started.Load(), endedFirst.Load())
	}
	want := door.Tally{Stricter: map[string]int64{"other": 4, "dangling-write": 2}, SkippedLines: 6, Passed: 8, CountsPassed: true}
	if diff := cmp.Diff(want, res.Tally); diff != "" {
		t.Errorf("tally (-want +got):\n%s", diff)
	}
	js, err := json.Marshal(Summarize(res, "counting"))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{`"stricter":{"dangling-write":2,"other":4}`, `"skipped_stdout_lines":6`, `"allowed_passed":8`} {
		if !strings.Contains(string(js), part) {
			t.Errorf("the JSON summary lacks %s:\n%s", part, js)
		}
	}
	plain, err := Run(context.Background(), Config{Seed: 1, Checks: 50, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := json.Marshal(Summarize(plain, "reference")); strings.Contains(string(js), "stricter") || strings.Contains(string(js), "skipped_stdout_lines") || strings.Contains(string(js), "allowed_passed") {
		t.Errorf("a target that does not count: %s", js)
	}
}
