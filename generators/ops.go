package generators

import (
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// noScenario stands in for a nil *Scenario: nothing granted, an empty world.
var noScenario scenario.Scenario

// Op draws one op of the given class for a scenario (so tests and the fuzz
// decoder can ask for a class). It reads sc — the grant's roots, hosts,
// tools and budgets, the world's files, routes and DNS lines — to aim the op
// where a violation would show, and never changes it. A nil sc is an empty
// scenario. Unlabelled, and any class past attack.NumClasses, give a benign
// op.
func Op(src Source, class attack.Class, sc *scenario.Scenario) core.Op {
	if sc == nil {
		sc = &noScenario
	}
	switch class {
	case attack.Traversal:
		return pathOp(src, sc, traversalPaths)
	case attack.PrefixSibling:
		return pathOp(src, sc, prefixSiblingPaths)
	case attack.DotSegments:
		return pathOp(src, sc, dotSegmentPaths)
	case attack.Encoded:
		return pathOp(src, sc, encodedPaths)
	case attack.Lookalike:
		return lookalikeOp(src, sc)
	case attack.OutsideAbsolute:
		return outsideOp(src, sc)
	case attack.Relative:
		return pathOp(src, sc, relativePaths)
	case attack.ControlBytes:
		return controlOp(src, sc)
	case attack.LongPath:
		return longOp(src, sc)
	case attack.UnknownHost:
		return unknownHostOp(src, sc)
	case attack.HostVariant:
		return hostVariantOp(src, sc)
	case attack.IPSpelling:
		return ipOp(src, sc)
	case attack.Metadata:
		return metadataOp(src, sc)
	case attack.Rebinding:
		return rebindOp(src, sc)
	case attack.OpFlood:
		return floodOp(src, sc)
	case attack.WallJump:
		return wallOp(src, sc)
	case attack.OutputFlood:
		return outputFloodOp(src, sc)
	case attack.BudgetBoundary:
		return boundaryOp(src, sc)
	case attack.UnknownTool:
		return unknownToolOp(src, sc)
	case attack.ToolVariant:
		return toolVariantOp(src, sc)
	case attack.UnknownOp:
		return unknownKindOp(src, sc)
	case attack.MalformedOp:
		return malformedOp(src, sc)
	case attack.SymlinkEscape, attack.SymlinkParent, attack.SymlinkLoop:
		return linkOp(src, sc, class)
	case attack.Redirect:
		return redirectOp(src, sc)
	}
	return benignOp(src, sc)
}

func read(src Source, p string) core.Op { return core.Op{Kind: core.OpRead, Args: args1(src, p)} }

func write(src Source, p, data string) core.Op {
	return core.Op{Kind: core.OpWrite, Args: args2(src, p, data)}
}

func fetch(src Source, h, p string) core.Op {
	return core.Op{Kind: core.OpFetch, Args: args2(src, h, p)}
}

func tool(src Source, n, in string) core.Op {
	return core.Op{Kind: core.OpTool, Args: args2(src, n, in)}
}

func args1(src Source, a string) []string {
	s := newArgs(src, 1)
	s[0] = a
	return s
}

func args2(src Source, a, b string) []string {
	s := newArgs(src, 2)
	s[0], s[1] = a, b
	return s
}

// newArgs returns a fresh slice of n strings, len == cap so that appending
// to it never reaches a neighbour's: under Generate carved from its slab,
// else allocated.
func newArgs(src Source, n int) []string {
	if d, ok := src.(*draw); ok {
		return d.strs.carve(n)
	}
	return make([]string, n)
}

// anyHost is a granted host, or api.internal when none is.
func anyHost(src Source, sc *scenario.Scenario) string {
	if len(sc.Grant.NetHosts) == 0 {
		return "api.internal"
	}
	return pick(src, sc.Grant.NetHosts)
}

// anyTool is a granted tool, or summarize when none is.
func anyTool(src Source, sc *scenario.Scenario) string {
	if len(sc.Grant.Tools) == 0 {
		return "summarize"
	}
	return pick(src, sc.Grant.Tools)
}

// benignOp is legal work: a read of an existing file under a read root, a
// write under a write root, a fetch of a routed path from a granted host
// that resolves public, a call of a granted tool. With nothing granted it
// falls back to a read, which is refused.
func benignOp(src Source, sc *scenario.Scenario) core.Op {
	g := &sc.Grant
	var w [4]int
	if len(g.FSRead) > 0 {
		w[0] = 4
	}
	if len(g.FSWrite) > 0 {
		w[1] = 2
	}
	if len(g.NetHosts) > 0 {
		w[2] = 2
	}
	if len(g.Tools) > 0 {
		w[3] = 2
	}
	if w == [4]int{} {
		return read(src, "/work/data.txt")
	}
	k := weighted(src, w[:])
	if k == 2 {
		if h, ok := safeHost(src, sc); ok {
			return fetch(src, h, routePath(src, sc, h))
		}
		if w[2] = 0; w == [4]int{} {
			return fetch(src, anyHost(src, sc), "/status") // every granted host is internal
		}
		k = weighted(src, w[:])
	}
	switch k {
	case 0:
		return read(src, benignReadPath(src, sc))
	case 1:
		return write(src, cat(src, writeBase(src, sc), "/", pick(src, writeNames)), pick(src, writeData))
	}
	return tool(src, pick(src, g.Tools), pick(src, toolInputs))
}

// benignReadPath is an existing file under a read root when a few draws
// find one, else a stored name below a read root; one read in eight names
// a read root itself ("/work" or "/work/", whichever way the root is
// written), which is under it.
func benignReadPath(src Source, sc *scenario.Scenario) string {
	if len(sc.Grant.FSRead) > 0 && oneIn(src, 8) {
		if b := readBase(src, sc); b != "" {
			return b + "/"[:src.Intn(2)]
		}
	}
	if files := sc.World.Files; len(files) > 0 {
		for range 3 {
			if f := pick(src, files); !spec.HasTraversal(f.Path) && underRead(src, sc, f.Path) {
				return f.Path
			}
		}
	}
	return cat(src, readBase(src, sc), "/", pick(src, fileNames))
}

// lookalikeOp is a path with lookalike dots, slashes or letters, or now and
// then a host spelled with them.
func lookalikeOp(src Source, sc *scenario.Scenario) core.Op {
	if !oneIn(src, 5) {
		return pathOp(src, sc, lookalikePaths)
	}
	h := anyHost(src, sc)
	var v string
	switch src.Intn(3) {
	case 0:
		v = homoglyph(h)
	case 1:
		v = strings.ReplaceAll(h, ".", "\uff0e") // fullwidth full stop
	default:
		v = strings.ReplaceAll(h, ".", "\u3002") // ideographic full stop
	}
	if v == h { // no dot to replace
		v = homoglyph(h)
	}
	return fetch(src, v, routePath(src, sc, h))
}

// outsideOp is an absolute path outside the roots, or a write into a read
// root that is outside every write root.
func outsideOp(src Source, sc *scenario.Scenario) core.Op {
	g := &sc.Grant
	if len(g.FSRead) > 0 && oneIn(src, 5) {
		p := cat(src, readBase(src, sc), "/x")
		if !underWrite(src, sc, p) {
			return write(src, p, "pwned")
		}
	}
	return pathOp(src, sc, outsidePaths)
}

// controlOp puts a NUL, invalid UTF-8 or a legal control byte into any
// argument (or, now and then, the kind) of a benign or hostile op, or
// (one time in six) spells a path with a line break after a root's name.
func controlOp(src Source, sc *scenario.Scenario) core.Op {
	if oneIn(src, 6) {
		return pathOp(src, sc, lineBreakPaths)
	}
	var op core.Op
	switch src.Intn(5) {
	case 0, 1:
		op = benignOp(src, sc)
	case 2:
		op = pathOp(src, sc, traversalPaths)
	case 3:
		op = unknownHostOp(src, sc)
	default:
		op = toolVariantOp(src, sc)
	}
	b := pick(src, badBytes)
	if src.Intn(5) >= 3 {
		b = pick(src, ctrlBytes)
	}
	if len(op.Args) == 0 || oneIn(src, 12) {
		op.Kind = insertAt(src, op.Kind, b)
		return op
	}
	i := src.Intn(len(op.Args))
	op.Args[i] = insertAt(src, op.Args[i], b)
	return op
}

// insertAt puts b at the end, the start or the middle of s (the middle may
// split a UTF-8 sequence: more invalid bytes).
func insertAt(src Source, s, b string) string {
	switch src.Intn(3) {
	case 0:
		return cat(src, s, b)
	case 1:
		return cat(src, b, s)
	}
	m := len(s) / 2
	return cat(src, s[:m], b, s[m:])
}

// longLabels are four 63-byte DNS labels; longHosts are very long names.
var (
	longLabels = fill[:63] + "." + fill[1:64] + "." + fill[2:65] + "." + fill[3:66] + "."
	longHosts  = []string{longLabels + "attacker.example", fill[:300] + ".example"}
)

// longOp is a very long or very deep path, or a long URL path, host or tool
// input.
func longOp(src Source, sc *scenario.Scenario) core.Op {
	switch src.Intn(10) {
	case 0:
		return fetch(src, anyHost(src, sc), slashFill(src, "", 200+src.Intn(2000)))
	case 1:
		return fetch(src, pick(src, longHosts), "/x")
	case 2:
		return fetch(src, cat(src, longLabels, anyHost(src, sc)), "/status")
	case 3:
		return tool(src, anyTool(src, sc), fill[:pick(src, inputSizes[1:])])
	}
	return pathOp(src, sc, longPaths)
}
