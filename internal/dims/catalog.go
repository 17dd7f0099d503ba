package dims

import (
	"math"
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/internal/iprange"
)

// ranges are the internal ranges of SPEC §6 and the prefixes of its
// embedding forms, a group each.
var ranges = iprange.Ranges()

// Positions of an address against a range.
const (
	Below    = iota // the address just before the range
	Low             // the range's first address
	Interior        // strictly between its edges
	High            // its last address
	Above           // the address just after it
	numPositions
)

var positionNames = [numPositions]string{"just below", "low edge", "interior", "high edge", "just above"}

// spellingNames name the spellings of iprange, in its order.
var spellingNames = [iprange.NumSpellings]string{"dotted", "short", "integer", "hex", "octal", "v4-mapped", "nat64",
	"v4-compatible", "6to4", "compressed", "expanded", "bracketed", "name"}

// Budget points of one budget.
const (
	BudgetZero  = iota // the budget is 0 and an op is charged against it
	BudgetBelow        // usage after the op stays below the budget
	BudgetAt           // usage lands exactly on it
	BudgetOver         // usage would be one past it: the op halts
	BudgetMax          // the budget is math.MaxInt64
	numBudgetPoints
)

var (
	budgetNames      = [...]string{"max_ops", "max_wall", "max_output_bytes"}
	budgetPointNames = [numBudgetPoints]string{"0", "below", "exactly at", "one over", "max int64"}
)

// Pairs of budgets at or past their limits in the same op: which one
// wins is decided there. An op past max_ops never reads the clock, so its
// wall is the one the clock would have answered; an op past max_ops or
// max_wall has no effect and so no bytes: output is at or past its limit
// only when both others let the op through.
var pairNames = [...]string{
	"ops at + wall at", "ops at + wall past", "ops past + wall (would be) at", "ops past + wall (would be) past",
	"ops at + output at", "ops at + output past", "wall at + output at", "wall at + output past",
	"ops at + wall at + output at", "ops at + wall at + output past",
}

// Clock shapes.
const (
	ClockStep0 = iota
	ClockStep1
	ClockStepLarge
	ClockStepNegative
	ClockPastTop
	numClockShapes
)

var clockNames = [numClockShapes]string{"step 0", "step 1", "step ≥ 2^32", "negative step", "a tick past 2^63−1"}

// largeStep is where a step counts as large: past any 32-bit counter.
const largeStep = math.MaxUint32 + 1

// Byte classes.
const (
	ASCII = iota
	MultiByte
	InvalidUTF8
	NUL
	numByteClasses
)

var byteClassNames = [numByteClasses]string{"ASCII", "multi-byte UTF-8", "invalid UTF-8", "NUL"}

// Argument positions whose bytes are classed, and the data returned.
const (
	ArgKind = iota
	ArgFSPath
	ArgWriteData
	ArgHost
	ArgFetchPath
	ArgToolName
	ArgToolInput
	ArgData
	numArgs
)

var argNames = [numArgs]string{"op kind", "fs path", "write data", "fetch host", "fetch path", "tool name", "tool input", "returned data"}

// Multi-byte returned data where the output budget is tight.
var edgeDataNames = [...]string{"multi-byte data landing exactly at max_output_bytes", "multi-byte data one byte over max_output_bytes"}

// Path shapes relative to the root an fs path names (SPEC §4).
const (
	PathRootItself  = iota // /work
	PathRootSlash          // /work/
	PathChild              // /work/a
	PathDeep               // /work/a/b/c
	PathTrailing           // /work/a/
	PathDotSegments        // /work/./a, /work//a
	PathTraversal          // /work/../etc
	PathBackslash          // /work\..\etc
	PathDotDotName         // /work/..hidden
	PathPercent            // /work/%2e%2e/etc
	PathLookalike          // /work/\uff0e\uff0e/etc
	PathSibling            // /workshop/x, /work.bak
	PathAncestor           // /, a parent of the root
	numPathShapes
)

var pathShapeNames = [numPathShapes]string{"the root itself", "the root with a slash", "child", "deep child (3+ levels)",
	"trailing slash", "dot segments", "traversal with /", "traversal with \\", "..name (not traversal)",
	"percent-encoded", "non-ASCII bytes (lookalikes)", "prefix sibling", "ancestor of the root"}

// Paths that name no root.
const (
	PathRelative = iota
	PathEmpty
	PathOutside
	numLoosePaths
)

var loosePathNames = [numLoosePaths]string{"relative", "empty", "outside every root"}

var rootGroups = [2]string{"root written with a trailing slash", "root written without one"}

// Host shapes against the granted hosts (SPEC §9).
const (
	HostGranted = iota
	HostCase
	HostTrailingDot
	HostTwoDots
	HostPort
	HostUserinfo
	HostGrantedAt
	HostSpace
	HostSubdomain
	HostPrefix
	HostIPv4
	HostIPv6
	HostLocalhost
	HostMetadata
	HostEmpty
	HostOther
	HostEncoded
	numHostShapes
)

var hostShapeNames = [numHostShapes]string{"granted, byte for byte", "case variant", "trailing dot", "two trailing dots",
	":port", "user@granted", "granted@other", "white space or control byte", "subdomain of a granted host",
	"granted host as a prefix", "IPv4 literal", "IPv6 literal", "localhost", "metadata name", "empty", "other name",
	"granted host percent-encoded or in Unicode"}

// Where each dimension's points start in the catalog.
var (
	baseBudget, basePair, baseClock, baseBytes, baseEdgeData, basePath, baseLoose, baseHost int
	// rangeBase[r] is where range r's points start; a range has a point
	// for each position × spelling of its family.
	rangeBase []int
)

var catalog = build()

func build() []Point {
	var out []Point
	add := func(p Point) { out = append(out, p) }
	for _, r := range ranges {
		rangeBase = append(rangeBase, len(out))
		sp := iprange.SpellingsOf(r)
		for pos := range numPositions {
			for _, s := range sp {
				why := unreachable(r, pos)
				if why == "" && s == iprange.Compressed {
					why = uncompressible(r, pos)
				}
				if why == "" && s == iprange.Compatible {
					why = incompatible(r, pos)
				}
				add(Point{Dim: InternalRange, Group: r.String(), Name: positionNames[pos] + ", " + spellingNames[s], Unreachable: why})
			}
		}
	}
	baseBudget = len(out)
	for _, b := range budgetNames {
		for _, p := range budgetPointNames {
			add(Point{Dim: Budget, Group: b, Name: p})
		}
	}
	basePair = len(out)
	for _, p := range pairNames {
		add(Point{Dim: BudgetPair, Group: "same op", Name: p})
	}
	baseClock = len(out)
	for i, c := range clockNames {
		p := Point{Dim: Clock, Group: "tick clock", Name: c}
		if i == ClockStepNegative {
			p.Unreachable = "a scenario writes its clock's step as a non-negative number (SPEC §10, package scenario)"
		}
		add(p)
	}
	baseBytes = len(out)
	for _, a := range argNames {
		for _, b := range byteClassNames {
			add(Point{Dim: Bytes, Group: a, Name: b})
		}
	}
	baseEdgeData = len(out)
	for _, n := range edgeDataNames {
		add(Point{Dim: Bytes, Group: "returned data", Name: n})
	}
	basePath = len(out)
	for _, g := range rootGroups {
		for _, s := range pathShapeNames {
			add(Point{Dim: PathShape, Group: g, Name: s})
		}
	}
	baseLoose = len(out)
	for _, s := range loosePathNames {
		add(Point{Dim: PathShape, Group: "no root", Name: s})
	}
	baseHost = len(out)
	for _, s := range hostShapeNames {
		add(Point{Dim: HostShape, Group: "net_fetch host", Name: s})
	}
	return out
}

// unreachable says why range r has no address at position pos, or "".
func unreachable(r netip.Prefix, pos int) string {
	first, last := iprange.Edges(r)
	switch {
	case pos == Below && !first.Prev().IsValid():
		return "no address comes before " + first.String()
	case pos == Above && !last.Next().IsValid():
		return "no address comes after " + last.String()
	case pos == Interior && first.Next() == last || pos == Interior && first == last:
		return "a range of " + map[bool]string{true: "one address", false: "two addresses"}[first == last] + " has no interior"
	}
	return ""
}

// rangeEdges holds each range's edges and the addresses just outside
// them (invalid where there is none), computed once.
var rangeEdges = func() [][4]netip.Addr {
	out := make([][4]netip.Addr, len(ranges))
	for i, r := range ranges {
		first, last := iprange.Edges(r)
		out[i] = [4]netip.Addr{first.Prev(), first, last, last.Next()}
	}
	return out
}()

// incompatible says why the address of IPv4 range r at position pos (not
// Interior) has no IPv4-compatible spelling, or "": ::0.0.0.0 is ::, the
// unspecified address, and ::0.0.0.1 is ::1, loopback (SPEC §6 keeps both
// out of the form).
func incompatible(r netip.Prefix, pos int) string {
	a := edgeAddr(r, pos)
	switch {
	case !a.IsValid():
		return ""
	case a == netip.IPv4Unspecified():
		return "::" + a.String() + " is ::, the unspecified address, not an IPv4-compatible one"
	case a == netip.AddrFrom4([4]byte{0, 0, 0, 1}):
		return "::" + a.String() + " is ::1, loopback, not an IPv4-compatible address"
	}
	return ""
}

// edgeAddr is range r's address at position pos, or the zero Addr for
// Interior (which has many).
func edgeAddr(r netip.Prefix, pos int) netip.Addr {
	first, last := iprange.Edges(r)
	switch pos {
	case Below:
		return first.Prev()
	case Low:
		return first
	case High:
		return last
	case Above:
		return last.Next()
	}
	return netip.Addr{}
}

// uncompressible says why the address of range r at position pos (not
// Interior) has no compressed spelling, or "": "::" stands for at least
// one 16-bit group of zeros, and an address with none (fdff:ffff:…:ffff)
// has no spelling with "::" that Go's parser, or inet_pton, accepts.
func uncompressible(r netip.Prefix, pos int) string {
	a := edgeAddr(r, pos)
	if !a.IsValid() {
		return ""
	}
	b := a.As16()
	for i := 0; i < 16; i += 2 {
		if b[i] == 0 && b[i+1] == 0 {
			return ""
		}
	}
	return a.String() + " has no group of zeros for :: to stand for"
}
