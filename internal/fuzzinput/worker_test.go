package fuzzinput

import (
	"flag"
	"os"
	"runtime"
	"sync"
	"testing"
)

// TestOneProcPerWorker: outside a fuzz worker OneProcPerWorker leaves
// GOMAXPROCS alone and CheckScenario's stack as it is; in one (the flag go
// test -fuzz sets on its worker processes), it sets one P, unless the
// GOMAXPROCS variable says otherwise, and has CheckScenario grow its stack
// up front whatever that variable says.
func TestOneProcPerWorker(t *testing.T) {
	worker := flag.Lookup("test.fuzzworker")
	if worker == nil {
		t.Fatal("no test.fuzzworker flag: the testing package changed how it marks fuzz workers")
	}
	was, procs, wasInWorker := worker.Value.String(), runtime.GOMAXPROCS(0), inWorker.Load()
	defer func() {
		worker.Value.Set(was)
		runtime.GOMAXPROCS(procs)
		inWorker.Store(wasInWorker)
		workerOnce = sync.Once{}
	}()

	workerOnce = sync.Once{}
	worker.Value.Set("false")
	inWorker.Store(false)
	OneProcPerWorker()
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Fatalf("outside a fuzz worker GOMAXPROCS went from %d to %d", procs, got)
	}
	if inWorker.Load() {
		t.Fatal("outside a fuzz worker CheckScenario would grow its stack up front")
	}

	workerOnce = sync.Once{}
	worker.Value.Set("true")
	OneProcPerWorker()
	if !inWorker.Load() {
		t.Fatal("in a fuzz worker CheckScenario would not grow its stack up front")
	}
	got := runtime.GOMAXPROCS(0)
	if os.Getenv("GOMAXPROCS") != "" {
		if got != procs {
			t.Fatalf("with GOMAXPROCS set, a fuzz worker's GOMAXPROCS went from %d to %d", procs, got)
		}
		return
	}
	if procs == 1 {
		t.Skip("one P already: nothing to tell apart")
	}
	if got != 1 {
		t.Fatalf("in a fuzz worker GOMAXPROCS = %d, want 1", got)
	}
}
