package fuzzinput

// workerStack is how much stack a check is given up front in a go test
// -fuzz worker (inWorker). A worker runs every input on a goroutine of its
// own, whose stack starts at a few kilobytes, and a check (decode, then the
// oracle's run and replay) goes deeper than that: left to itself the stack
// doubles as the check goes deeper, each time copying every frame below and
// adjusting its pointers (runtime.copystack). Grown once at the top, it
// copies only the few frames above the fuzz body
// (BenchmarkCheckScenarioFresh compares the two; docs/benchmarks.md has the
// figures). Under go test -fuzz itself the harness's frames (a reflect
// call) have grown the stack once before the body runs, so there it saves
// less. 16 KB is the largest stack the runtime hands out from its per-P
// caches; a larger one comes from the heap.
const workerStack = 16 << 10

// opaqueZero is 0, but the compiler cannot know it: indexed by it,
// growStack's frame is kept whole. It is only ever read.
var opaqueZero int

// growStack grows the calling goroutine's stack to at least workerStack
// bytes (to exactly that when less than about 7 KB of it is in use). On a
// stack that big already it costs a call that zeroes a large frame, which
// is why only a worker calls it. The frame is
// half of workerStack: the runtime doubles a stack until the frame fits,
// which from a shallow depth lands on workerStack, not twice it.
//
//go:noinline
func growStack() byte {
	var frame [workerStack / 2]byte
	frame[opaqueZero] = 1
	return frame[len(frame)-1-opaqueZero]
}
