package generators

import (
	"slices"

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
}

// toolVariantOp calls a respelling of a granted tool.
func toolVariantOp(src Source, sc *scenario.Scenario) core.Op {
	t := anyTool(src, sc)
	v := pick(src, toolVariants)(t)
	if v == t || slices.Contains(sc.Grant.Tools, v) { // no grant may hold white space
		v = t + " "
	}
	return tool(src, v, pick(src, toolInputs))
}

// unknownKindOp is an op of a kind that is none of the four, with a real
// op's arguments or a random number of them.
func unknownKindOp(src Source, sc *scenario.Scenario) core.Op {
	k := pick(src, unknownKinds)
	if src.Intn(4) < 3 {
		return core.Op{Kind: k, Args: benignOp(src, sc).Args}
	}
	args := newArgs(src, src.Intn(5))
	for i := range args {
		args[i] = pick(src, toolInputs)
	}
	return core.Op{Kind: k, Args: args}
}

// malformedOp is a known kind with missing or extra arguments, or a NUL in
// one, built from a benign or hostile op.
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
	switch src.Intn(6) {
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
	default:
		op.Args = []string{}
	}
	return op
}
