//go:build unix

package realfs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestReadFileStaysInTheTree: the harness's second look at a file follows
// the world's links, absolute and relative, as the disk does, and reads
// nothing a sandbox linked or swapped in since: a link out of the tree, a
// named pipe (without waiting on it), a file past the bound, a loop.
func TestReadFileStaysInTheTree(t *testing.T) {
	ws := scenario.WorldSpec{
		Files: []scenario.File{{Path: "/data/a.txt", Data: "A"}, {Path: "/etc/passwd", Data: "root:x:0:0"}, {Path: "/data/big", Data: strings.Repeat("b", 100)}},
		Links: []scenario.Link{{Path: "/data/abs", Target: "/data/a.txt"}, {Path: "/data/rel", Target: "a.txt"}, {Path: "/data/up", Target: "../data/sub/../a.txt"},
			{Path: "/data/sub", Target: "/data"}, {Path: "/data/loop", Target: "loop"}},
	}
	g := core.GrantSpec{FSRead: []string{"/data/"}}
	tr, err := Materialize(t.TempDir()+"/base", ws, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	// As the disk reads them: a ".." after a link to a directory climbs
	// from where the link led (/data/up, /data/sub/../a.txt: /a.txt, none).
	for _, p := range []string{"/data/a.txt", "/data/abs", "/data/rel", "/data/sub/a.txt", "/data/sub/sub/rel", "/data/a.txt/", "/data/./a.txt", "/data/up", "/data/sub/../a.txt"} {
		got, err := tr.ReadFile(p, 64)
		disk, derr := os.ReadFile(tr.Root() + strings.TrimSuffix(p, "/"))
		if (err == nil) != (derr == nil) || string(got) != string(disk) {
			t.Errorf("ReadFile(%s) = %q, %v; the disk reads %q, %v", p, got, err, disk, derr)
		}
		if want := !strings.Contains(p, "..") && p != "/data/up"; want != (string(got) == "A") {
			t.Errorf("ReadFile(%s) = %q, want A: %v", p, got, want)
		}
	}
	// A file swapped, between the look at it and its opening, for a link
	// to another beside it is not read as that other.
	t.Cleanup(func() { testHookReadFile = nil })
	testHookReadFile = func(name string) {
		if name != "a.txt" {
			return
		}
		at := tr.Root() + "/data/a.txt"
		if err := os.Rename(at, at+".moved"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("big", at); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := tr.ReadFile("/data/a.txt", 1000); err == nil || strings.Contains(string(got), "b") {
		t.Errorf("ReadFile of a file swapped for a link after the look = %q, %v; want an error", got, err)
	}
	testHookReadFile = nil
	outside := filepath.Join(t.TempDir(), "host-secret")
	if err := os.WriteFile(outside, []byte("HOST"), 0o644); err != nil {
		t.Fatal(err)
	}
	swapped := tr.Root() + "/data/a.txt"
	if err := os.Remove(swapped); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, swapped); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), tr.Root()+"/data/dirout"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(tr.Root()+"/data/pipe", 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/data/a.txt", "/data/abs", "/data/rel", "/data/dirout/host-secret", "/data/pipe", "/data/big", "/data/loop", "/data", "/../x"} {
		done := make(chan struct{})
		var got []byte
		var err error
		go func() {
			got, err = tr.ReadFile(p, 64)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("ReadFile(%s) has not returned after a minute: it waits on a pipe", p)
		}
		if err == nil || strings.Contains(string(got), "HOST") {
			t.Errorf("ReadFile(%s) = %q, %v; want an error and nothing read", p, got, err)
		}
	}
}
