//go:build linux

package realfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestObserveBudget: a tree filled past what an Observation holds, with
// sparse files that cost the sandbox no disk or with empty files, fails
// Observe with a BudgetError that gives the numbers, rather than have
// the harness hold it all.
func TestObserveBudget(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		size  int64
		check func(e *BudgetError) bool
	}{
		{"bytes", MaxObserved/MaxInline + 16, MaxInline, func(e *BudgetError) bool { return e.Bytes > MaxObserved }},
		{"entries", MaxEntries, 0, func(e *BudgetError) bool { return e.Entries > MaxEntries }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := materialize(t, layoutWorld, layoutGrant, layoutOps)
			dir := real(t, tr, "/work/out")
			for i := range tc.n {
				f, err := os.Create(filepath.Join(dir, fmt.Sprintf("s%06d", i)))
				must(t, err)
				must(t, f.Truncate(tc.size))
				must(t, f.Close())
			}
			_, err := tr.Observe()
			var be *BudgetError
			if !errors.As(err, &be) || !tc.check(be) {
				t.Fatalf("Observe of %d files of %d bytes: %v, want a BudgetError past the bound", tc.n, tc.size, err)
			}
			if !strings.Contains(err.Error(), "filled its tree past what the harness reads") {
				t.Errorf("words %q", err)
			}
		})
	}
}

// deepChain makes a chain of n directories below dir, a level at a time
// (deeper than a path may name), and returns the name of its top.
func deepChain(t *testing.T, dir string, n int) string {
	t.Helper()
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	must(t, err)
	name := strings.Repeat("a", 20)
	for range n {
		must(t, syscall.Mkdirat(fd, name, 0o755))
		next, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			syscall.Close(fd)
			t.Fatal(err)
		}
		syscall.Close(fd)
		fd = next
	}
	must(t, syscall.Close(fd))
	return name
}

// TestObserveDepthBound: a chain of directories deeper than MaxDepth is
// observed down to it, the directory there marked Unread and not looked
// into, so that it is a change, and Remove takes the whole chain.
func TestObserveDepthBound(t *testing.T) {
	tr := materialize(t, layoutWorld, layoutGrant, layoutOps)
	before := observeT(t, tr)
	deepChain(t, real(t, tr, "/work/out"), MaxDepth+500)
	o := observeT(t, tr)
	if got, most := len(o.Entries)-len(before.Entries), MaxDepth; got <= 0 || got > most {
		t.Errorf("%d entries of the chain observed, want at most %d", got, most)
	}
	unread := 0
	for _, e := range o.Entries {
		if e.Unread {
			unread++
		}
	}
	if unread != 1 {
		t.Errorf("%d entries Unread, want the one at the depth bound", unread)
	}
	must(t, tr.Remove())
	if _, err := os.Lstat(tr.Base()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the base stands after Remove: %v", err)
	}
}

// TestRemoveDeepChainFewDescriptors: a chain of directories deeper than
// the descriptors the process may hold (os.Root's RemoveAll holds one a
// level, and fails) is removed all the same, its directories lifted a
// level at a time, with neither its paths nor the descriptors held
// growing with its depth.
func TestRemoveDeepChainFewDescriptors(t *testing.T) {
	tr := materialize(t, layoutWorld, layoutGrant, layoutOps)
	deepChain(t, real(t, tr, "/work/out"), 3000)
	var old syscall.Rlimit
	must(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old))
	low := old
	low.Cur = 256
	must(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low))
	err := tr.Remove()
	must(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old))
	if err != nil {
		t.Fatalf("Remove of a chain deeper than the descriptors at hand: %v", err)
	}
	if _, err := os.Lstat(tr.Base()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the base stands after Remove: %v", err)
	}
}
