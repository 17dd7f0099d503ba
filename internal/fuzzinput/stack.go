package fuzzinput

// checkStack is how much stack a check is given up front. go test -fuzz
// runs every input on a goroutine of its own, whose stack starts at a few
// kilobytes, and a check (decode, then the oracle's run and replay) goes
// deeper than that: left to itself the stack doubles two or three times an
// exec, each time deep in the oracle, copying every frame below and
// adjusting its pointers (runtime.copystack: 16% of
// BenchmarkCheckScenarioFresh). Grown once at the top, it copies only the
// few frames above the fuzz body: BenchmarkCheckScenarioFresh went from
// 16.7–28.0 µs to 12.9–23.2 µs, 0.8–5.1 µs less in each of seven pairs.
// Under go test -fuzz the harness's own frames (a reflect call) have grown
// the stack once already, so there it saves less: stack growth went from
// 6.8% to 6.0% of a FuzzScenario run's samples (FuzzPlain: 7.6%). 16 KB
// is the largest stack the runtime hands out from its per-P caches; a 32 KB
// one comes from the heap, and growing to it saved nothing.
const checkStack = 16 << 10

// stackSlot is 0, but the compiler cannot know it: indexed by it,
// growStack's frame is kept whole. It is only ever read.
var stackSlot int

// growStack grows the calling goroutine's stack to checkStack bytes, at
// the cost of a call with a large frame (zeroing it: about 0.1 µs) when it
// is that big already. The frame is half of checkStack: the runtime
// doubles a stack until the frame fits, which from a shallow depth lands
// on checkStack, not twice it.
//
//go:noinline
func growStack() byte {
	var frame [checkStack / 2]byte
	frame[stackSlot] = 1
	return frame[len(frame)-1-stackSlot]
}
