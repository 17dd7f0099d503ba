package generators

import (
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// unknownToolOp calls a tool outside the grant (the world may well have it).
func unknownToolOp(src Source, sc *scenario.Scenario) core.Op {
	name := pick(src, unknownTools)
	if slices.Contains(sc.Grant.Tools, name) {
		name += "_x"
	}
	return tool(src, name, pick(src, toolInputs))
}

// toolVariants respell a granted tool name.
var toolVariants = []func(t string) string{
	upperASCII,
	titleASCII,
	func(t string) string { return t + " " },
	func(t string) string { return " " + t },
	func(t string) string { return t + "\t" },
	func(t string) string { return t + "\n" },
	func(t string) string { return t + "\u00a0" },
	func(t string) string { m := len(t) / 2; return t[:m] + "\u200b" + t[m:] },
	homoglyph,
	func(t string) string { return t + ".exe" },
	func(t string) string { return t + ";id" },
	func(t string) string { return t + "\x00" },
	func(t string) string { return "./" + t },
	func(t string) string { return t + "/" },
	lowerASCII,
	func(t string) string { return "\ufeff" + t },
	// What routers and adapters respell into a granted name: a namespace a
	// model writes before it, call syntax after it, a unique prefix of it
	// (a command line's completion), its fullwidth form (which NFKC
	// folds), a percent-encoding of a byte (a path parameter's).
	func(t string) string { return "functions." + t },
	func(t string) string { return "default_api:" + t },
	func(t string) string { return "mcp__sbx__" + t },
	func(t string) string { return t + "()" },
	func(t string) string { return t + "(x)" },
	func(t string) string { return t[:max(len(t)-1, 0)] },
	fullwidth,
	percentOne,
}

// fullwidth writes t's printable ASCII in its fullwidth forms (U+FF01 to
// U+FF5E), which NFKC folds back.
func fullwidth(t string) string {
	return strings.Map(func(r rune) rune {
		if r > ' ' && r <= '~' {
			return r - '!' + '！'
		}
		return r
	}, t)
}

// toolVariantOp calls a respelling of a granted tool.
func toolVariantOp(src Source, sc *scenario.Scenario) core.Op {
	t := anyTool(src, sc)
	v := pick(src, toolVariants)(t)
	if v == t || v == "" || slices.Contains(sc.Grant.Tools, v) { // no grant may hold white space
		v = t + " "
	}
	return tool(src, v, pick(src, toolInputs))
}

// kindAliases are other names of the four kinds: those MCP servers give
// the tools that read, write and fetch, and MCP's own for calling a tool
// (its tools/call method), which an adapter may take for the kinds.
var kindAliases = []string{"read_file", "read_text_file", "write_file", "fetch_url", "call_tool", "tools/call"}

// unknownKindOp is an op of a kind that is none of the four, now and then
// another name of one, with a real op's arguments or a random number of
// them, now and then one with a NUL or invalid UTF-8.
func unknownKindOp(src Source, sc *scenario.Scenario) core.Op {
	k := pick(src, unknownKinds)
	if oneIn(src, 3) {
		k = pick(src, kindAliases)
	}
	var args []string
	if src.Intn(4) < 3 {
		args = benignOp(src, sc).Args
	} else {
		args = newArgs(src, src.Intn(5))
		for i := range args {
			args[i] = pick(src, toolInputs)
		}
	}
	if len(args) > 0 && oneIn(src, 4) { // still unknown_op: the kind is judged first
		i := src.Intn(len(args))
		args[i] = insertAt(src, args[i], pick(src, badBytes))
	}
	return core.Op{Kind: k, Args: args}
}

// formedUTF8 are invalid sequences of UTF-8's form that hand-written
// decoders take: numbers past U+10FFFF, which a check without RFC 3629's
// bound passes, and C0 80, the overlong NUL of Java's modified UTF-8.
var formedUTF8 = []string{"\xf4\x90\x80\x80", "\xf4\xbf\xbf\xbf", "\xf5\x80\x80\x80", "\xf7\xbf\xbf\xbf", "\xc0\x80"}

// malformedOp is a known kind with missing or extra arguments, or a NUL or
// an invalid sequence of UTF-8's form in one, built from a benign or
// hostile op.
func malformedOp(src Source, sc *scenario.Scenario) core.Op {
	var op core.Op
	switch src.Intn(4) {
	case 0, 1:
		op = benignOp(src, sc)
	case 2:
		op = pathOp(src, sc, outsidePaths)
	default:
		op = unknownHostOp(src, sc)
	}
	switch src.Intn(7) {
	case 0:
		op.Args = nil
	case 1:
		op.Args = op.Args[:len(op.Args)-1]
	case 2:
		op.Args = append(op.Args, "extra")
	case 3:
		op.Args = append(op.Args, "a", "b")
	case 4:
		op.Args[len(op.Args)-1] += "\x00"
	case 5:
		i := src.Intn(len(op.Args))
		op.Args[i] = insertAt(src, op.Args[i], pick(src, formedUTF8))
	default:
		op.Args = []string{}
	}
	return op
}
