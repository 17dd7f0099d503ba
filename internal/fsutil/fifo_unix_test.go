//go:build unix

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadInputFIFO: a named pipe is refused at once, given directly or
// met below DIR/..., instead of waiting for a writer.
func TestReadInputFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "x.sbx")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() {
		_, err := ReadInput(fifo)
		done <- err
		_, err = ExpandPatterns([]string{dir + "/..."}, ".sbx")
		done <- err
	}()
	for _, what := range []string{"ReadInput", "ExpandPatterns"} {
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s of a named pipe: %v, want ErrNotRegular", what, err)
			}
		case <-time.After(time.Minute): // a stat takes microseconds; a blocked open takes forever
			unblock(fifo)
			t.Fatalf("%s of a named pipe still waiting after a minute", what)
		}
	}
}

// unblock opens fifo for writing, without blocking, and closes it, so a
// reader stuck opening it returns.
func unblock(fifo string) {
	if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}
