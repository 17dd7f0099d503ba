package generators

import (
	"github.com/sbxfuzz/sbxfuzz/scenario"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// floodOp is one cheap probe of a flood: mostly refused, all charged.
func floodOp(src Source, sc *scenario.Scenario) core.Op {
	switch src.Intn(8) {
	case 0:
		return benignOp(src, sc)
	case 1:
		return read(src, pick(src, outsideFiles).path)
	case 2:
		return read(src, cat(src, readBase(src, sc), "/../etc/passwd"))
	case 3:
		return core.Op{Kind: "exec", Args: args1(src, "cat /etc/passwd")}
	case 4:
		return core.Op{Kind: core.OpRead}
	case 5:
		return fetch(src, pick(src, attackerHosts), "/")
	case 6:
		return tool(src, "shell", "id")
	}
	return read(src, cat(src, readBase(src, sc), "/missing"))
}

// wallOp is ordinary work and probes, each burning a tick of a clock the
// scenario may have made to jump.
func wallOp(src Source, sc *scenario.Scenario) core.Op {
	if src.Intn(3) < 2 {
		return benignOp(src, sc)
	}
	return floodOp(src, sc)
}

// echoTool is a granted tool that returns its input (echo), else a granted
// one, else echo.
func echoTool(sc *scenario.Scenario) string {
	if slices.Contains(sc.Grant.Tools, "echo") || len(sc.Grant.Tools) == 0 {
		return "echo"
	}
	return sc.Grant.Tools[0]
}

// outputBudget is max_output_bytes clamped to what fill can give.
func outputBudget(sc *scenario.Scenario) int {
	return int(min(max(sc.Grant.MaxOutputBytes, 0), maxFill-1))
}

// outputFloodOp asks for more bytes than max_output_bytes allows: big files,
// bodies, tool outputs and echoes; or a refused big read, which is never
// charged.
func outputFloodOp(src Source, sc *scenario.Scenario) core.Op {
	switch src.Intn(7) {
	case 0:
		return read(src, bigFile(src, sc))
	case 1:
		return fetch(src, anyHost(src, sc), "/big")
	case 2:
		if slices.Contains(sc.Grant.Tools, "dump") {
			return tool(src, "dump", "x")
		}
		fallthrough
	case 3:
		n := floodSize(src, sc)
		if n <= maxMulti && oneIn(src, 3) && n >= minMulti {
			return tool(src, echoTool(sc), multiFill(n)) // the budget counts bytes, not runes
		}
		return tool(src, echoTool(sc), fill[:n])
	case 4:
		return read(src, cat(src, readBase(src, sc), "/../big"))
	case 5:
		return tool(src, "summarize", fill[:floodSize(src, sc)])
	}
	return fetch(src, grantedOr(src, sc), "/big")
}

// multiFill returns n bytes of valid UTF-8 holding multi-byte runes:
// two-byte runes, after one ASCII byte when n is odd, so that output is
// charged in bytes, never in runes. It needs n >= minMulti: one byte of
// valid UTF-8 holds no multi-byte rune, so for n < minMulti it returns
// ASCII filler, and its callers only ask for n >= minMulti.
func multiFill(n int) string {
	switch {
	case n < minMulti:
		return fill[:n]
	case n%2 == 1:
		return multiOdd[:n]
	}
	return multiOdd[1 : n+1]
}

// minMulti is the fewest bytes that hold a multi-byte rune (é).
const minMulti = 2

// maxMulti bounds multiFill: every sandbox validates the UTF-8 of its
// arguments, which costs more per byte past ASCII.
const maxMulti = 1024

// multiOdd is "x" and then é's: slices of it are multiFill's answers.
var multiOdd = "x" + strings.Repeat("\u00e9", maxMulti/2)

// maxInput bounds the big strings ops carry as arguments: every sandbox
// scans its arguments (NUL, UTF-8), so a megabyte input would cost more than
// the rest of the scenario. Megabyte outputs come from canned tool outputs
// and routed bodies instead, which cost nothing to pass around.
const maxInput = 8192

// inputSizes are the sizes of big tool inputs.
var inputSizes = []int{100, 1000, 4096, maxInput + 1}

// floodSize is one byte past the output budget or half of it plus one, when
// that is small enough to send, or a big input size.
func floodSize(src Source, sc *scenario.Scenario) int {
	b := outputBudget(sc)
	switch r := src.Intn(3); {
	case r == 0 && b < maxInput:
		return b + 1
	case r == 1 && b < 2*maxInput:
		return b/2 + 1
	}
	return pick(src, inputSizes)
}

// bigFile is a file under a read root with at least 100 bytes, or the
// root's "big" name.
func bigFile(src Source, sc *scenario.Scenario) string {
	files := sc.World.Files
	if n := len(files); n > 0 {
		j := src.Intn(n)
		for i := range files {
			if f := files[(i+j)%n]; len(f.Data) >= 100 && underRead(src, sc, f.Path) {
				return f.Path
			}
		}
	}
	return cat(src, readBase(src, sc), "/big")
}

// boundaryOp lands on a cap: zero-byte outputs; the five-byte data.txt and
// the ten-byte ten, which add up to the boundary profile's budgets; echoes
// of one to ten bytes, of exactly the output budget and of one byte more,
// ASCII or multi-byte UTF-8 (for a budget too big to echo, a big body or
// dump); an uncharged write.
func boundaryOp(src Source, sc *scenario.Scenario) core.Op {
	b := outputBudget(sc)
	base := readBase(src, sc)
	switch src.Intn(10) {
	case 0:
		return tool(src, echoTool(sc), "")
	case 1:
		return read(src, cat(src, base, "/empty"))
	case 2:
		return read(src, cat(src, base, "/ten"))
	case 3:
		return read(src, cat(src, base, "/data.txt"))
	case 4:
		if b > maxInput {
			return fetch(src, grantedOr(src, sc), "/big") // a body of 1 MiB + 1 lands one past the default budget
		}
		if b <= maxMulti && oneIn(src, 2) && b >= minMulti {
			return tool(src, echoTool(sc), multiFill(b))
		}
		return tool(src, echoTool(sc), fill[:b])
	case 5:
		if b > maxInput {
			return tool(src, "dump", "x")
		}
		if b < maxMulti && oneIn(src, 2) && b+1 >= minMulti {
			return tool(src, echoTool(sc), multiFill(b+1))
		}
		return tool(src, echoTool(sc), fill[:b+1])
	case 6:
		return tool(src, echoTool(sc), fill[:[]int{1, 2, 5, 10}[src.Intn(4)]])
	case 7:
		return write(src, cat(src, writeBase(src, sc), "/r.txt"), fill[:min(b, 4096)])
	case 8:
		return tool(src, "summarize", "")
	}
	return fetch(src, grantedOr(src, sc), "/empty")
}
