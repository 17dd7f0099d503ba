package fuzzinput

import (
	"flag"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
)

var workerOnce sync.Once

// inWorker is set in a go test -fuzz worker process, which runs every
// input on a goroutine of its own: there CheckScenario grows its stack up
// front (growStack). Plain go test runs each seed on a new goroutine too,
// but runs few of them; a benchmark's loop and a libFuzzer build run all
// their inputs on one goroutine, whose stack stays grown, so there the
// call would only cost.
var inWorker atomic.Bool

// OneProcPerWorker gives a go test -fuzz worker process one P, unless the
// GOMAXPROCS environment variable is set, and tells CheckScenario that it
// runs in a worker (inWorker). It is a no-op anywhere else: plain go test
// (the seeds run as tests), the coordinator, libFuzzer builds (they have
// no such flag). Every fuzz target calls it first.
//
// Why: the fuzzer starts one worker process per core (-parallel defaults
// to GOMAXPROCS), and each runs one input at a time on one goroutine. A
// worker with a P per core only adds garbage-collector and scheduler
// threads, which take the cores of the other workers.
func OneProcPerWorker() {
	workerOnce.Do(func() {
		f := flag.Lookup("test.fuzzworker")
		if f == nil || f.Value.String() != "true" {
			return
		}
		inWorker.Store(true)
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(1)
		}
	})
}
