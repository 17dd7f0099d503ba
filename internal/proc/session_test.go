//go:build unix

package proc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestEndWhileInitializeHangs: a child that never answers initialize is a
// hang of the build, bounded by the start timeout, and ending the session
// then returns at once — it kills the child instead of waiting for the
// read the abandoned build still makes (replay --sut 'exec:sleep 1000'
// printed its finding and never exited).
func TestEndWhileInitializeHangs(t *testing.T) {
	start, err := Sessions(roleCommand("mute"))
	if err != nil {
		t.Fatal(err)
	}
	f, end, _ := start()
	k := oracle.NewChecker(f, oracle.Options{Timeout: hangTimeout, StartTimeout: hangTimeout})
	got := checkOn(t, k, twoOps(t))
	k.Close()
	if len(got) != 1 || !got[0].Hang || !strings.Contains(got[0].Detail, "building the sandbox") {
		t.Errorf("findings %v, want a hang while building", got)
	}
	ended := make(chan struct{})
	go func() {
		end()
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(patience):
		t.Fatalf("the session did not end within %v of a child that never answered initialize", patience)
	}
	if _, err := f(must.Grant(core.GrantSpec{}), refworld.New(scenario.WorldSpec{})); !errors.Is(err, errEnded) {
		t.Errorf("the factory after end: %v, want %v", err, errEnded)
	}
}

// TestWorldRequestBetweenOps: a world request the child sends after its
// answer to an op, before the next request, is not served inside the next
// op (where its effects would be blamed on that op): it is a total finding
// on the op it followed, which says so, and the world never sees it.
func TestWorldRequestBetweenOps(t *testing.T) {
	start, err := Sessions(roleCommand("stray"))
	if err != nil {
		t.Fatal(err)
	}
	f, end, _ := start()
	defer end()
	got := judge.Check(f, twoOps(t), nil, judge.Options{Timeout: patience})
	if len(got) != 1 || got[0].Invariant != oracle.Total || got[0].Step != 1 ||
		!strings.Contains(got[0].Detail, "a world request (world/read) after op 1 answered") {
		t.Fatalf("findings %v, want one total finding on step 1 saying the world request came after op 1 answered", got)
	}
}

// TestWorldRequestBetweenOpsLate: the same request, arriving after the
// harness took the answer and before it sends the next op, is caught
// before that op is sent, in words that name the op it followed; the
// world never sees it.
func TestWorldRequestBetweenOpsLate(t *testing.T) {
	trigger := filepath.Join(t.TempDir(), "now")
	start, err := Sessions(roleCommand("straylate", trigger))
	if err != nil {
		t.Fatal(err)
	}
	f, end, _ := start()
	defer end()
	w := refworld.New(scenario.WorldSpec{Files: []scenario.File{{Path: "/etc/secret", Data: "s"}}})
	sb, err := f(must.Grant(core.GrantSpec{FSRead: []string{"/work/"}}), w)
	if err != nil {
		t.Fatal(err)
	}
	op := core.Op{Kind: "fs_read", Args: []string{"/work/a"}}
	sb.Run(op)
	if err := os.WriteFile(trigger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := sb.(*sandbox).c
	for deadline := time.Now().Add(patience); c.out.Buffered() == 0 && !c.p.pendingOutput(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the child never sent its stray request")
		}
	}
	failure := func() (f *door.Failure) {
		defer func() { f, _ = recover().(*door.Failure) }()
		sb.Run(op)
		return nil
	}()
	if failure == nil || !strings.Contains(failure.Error(), "a world request (world/read) after op 1 answered") {
		t.Fatalf("the next op: %v, want a failure naming the world request after op 1", failure)
	}
	for _, e := range w.Journal() {
		if strings.Contains(e.String(), "/etc/secret") {
			t.Errorf("the stray request reached the world: %v", e)
		}
	}
}

// TestUnfinishedLineAfterAnswer: a child that answers a call and, after
// the answer, writes part of a line it does not end breaks on that call,
// in words that say so. The call waited for the end of the line, as long
// as the child did not write it.
func TestUnfinishedLineAfterAnswer(t *testing.T) {
	c, err := start(roleArgv("unfinished"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.kill()
	done := make(chan error, 1)
	go func() { done <- c.initialize() }()
	select {
	case err = <-done:
	case <-time.After(patience):
		t.Fatalf("initialize, answered, did not return within %v of a line left unfinished after the answer", patience)
	}
	const want = "initialize: part of a line, without its end, after initialize answered"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("initialize: %v, want an error saying %q", err, want)
	}
}
