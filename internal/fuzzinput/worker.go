package fuzzinput

import (
	"flag"
	"os"
	"runtime"
	"sync"
)

var workerOnce sync.Once

// OneProcPerWorker gives a go test -fuzz worker process one P, and is a
// no-op anywhere else: plain go test (the seeds run as tests), the
// coordinator, libFuzzer builds (they have no such flag), and whenever the
// GOMAXPROCS environment variable is set. Every fuzz target calls it first.
//
// Why: the fuzzer starts one worker process per core (-parallel defaults
// to GOMAXPROCS), and each runs one input at a time on one goroutine. A
// worker with a P per core only adds garbage-collector and scheduler
// threads, which take the cores of the other workers. On 2 cores it bought
// 1.2-1.3x on average, from 0.85x to 2.2x in single rounds (README,
// "Fuzzing").
func OneProcPerWorker() {
	workerOnce.Do(func() {
		if os.Getenv("GOMAXPROCS") != "" {
			return
		}
		if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
			runtime.GOMAXPROCS(1)
		}
	})
}
