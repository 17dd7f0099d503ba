//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOInputExits2: replay and fmt refuse a named pipe, given directly
// or met below DIR/..., within a second, naming it, instead of waiting for
// a writer.
func TestFIFOInputExits2(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.sbx")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay", fifo}, {"replay", dir + "/..."}, {"fmt", fifo}, {"fmt", dir + "/..."},
	} {
		type result struct {
			st   int
			errs string
		}
		done := make(chan result, 1)
		go func() {
			st, _, errs := run(t, args...)
			done <- result{st, errs}
		}()
		select {
		case r := <-done:
			if r.st != ExitUsage || !strings.Contains(r.errs, fifo) || !strings.Contains(r.errs, "not a regular file") {
				t.Errorf("%v: status %d, stderr %q; want 2 and an error naming %s", args, r.st, r.errs, fifo)
			}
		case <-time.After(time.Minute): // a refusal is at once; only a stuck open waits this long
			// Let the stuck open return, so the test can go on.
			if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			<-done
			t.Errorf("%v: still waiting on the named pipe after a minute", args)
		}
	}
}
