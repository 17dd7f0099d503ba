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
// threads, which take the cores of the other workers: on 2 cores, one P per
// worker took FuzzScenario from 16,867 to 38,698 execs/s at -parallel 2
// (README, "Fuzzing").
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
