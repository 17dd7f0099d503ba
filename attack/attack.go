// Package attack is the attack-class taxonomy of SPEC §9. Every generated op
// carries one Class, so the oracle can count, per class, which invariants
// were exercised and which result kinds came back.
package attack

// Class identifies an attack class. The zero Class is Unlabelled: an op
// that came from a hand-written scenario or a fuzzer without a label.
type Class uint8

// The attack classes, in the SPEC's order; reports print them in this order.
const (
	Unlabelled Class = iota
	Benign
	Traversal
	PrefixSibling
	DotSegments
	Encoded
	Lookalike
	OutsideAbsolute
	Relative
	ControlBytes
	LongPath
	UnknownHost
	HostVariant
	IPSpelling
	Metadata
	Rebinding
	OpFlood
	WallJump
	OutputFlood
	BudgetBoundary
	UnknownTool
	ToolVariant
	UnknownOp
	MalformedOp
	SymlinkEscape
	SymlinkParent
	SymlinkLoop
	// Redirect comes last, after the classes it was added beside, so
	// that the classes before it keep their numbers (fuzz inputs name
	// classes by number).
	Redirect

	// NumClasses is one past the last Class; arrays indexed by Class use it.
	NumClasses
)

var names = [NumClasses]string{
	Unlabelled:      "unlabelled",
	Benign:          "benign",
	Traversal:       "traversal",
	PrefixSibling:   "prefix-sibling",
	DotSegments:     "dot-segments",
	Encoded:         "encoded",
	Lookalike:       "lookalike",
	OutsideAbsolute: "outside-absolute",
	Relative:        "relative",
	ControlBytes:    "control-bytes",
	LongPath:        "long-path",
	UnknownHost:     "unknown-host",
	HostVariant:     "host-variant",
	IPSpelling:      "ip-spelling",
	Metadata:        "metadata",
	Rebinding:       "rebinding",
	OpFlood:         "op-flood",
	WallJump:        "wall-jump",
	OutputFlood:     "output-flood",
	BudgetBoundary:  "budget-boundary",
	UnknownTool:     "unknown-tool",
	ToolVariant:     "tool-variant",
	UnknownOp:       "unknown-op",
	MalformedOp:     "malformed-op",
	SymlinkEscape:   "symlink-escape",
	SymlinkParent:   "symlink-parent",
	SymlinkLoop:     "symlink-loop",
	Redirect:        "redirect",
}

// String returns the SPEC's ID of c, such as "prefix-sibling".
func (c Class) String() string {
	if c < NumClasses {
		return names[c]
	}
	return "unlabelled"
}

// Parse returns the Class whose ID is s, and false when there is none.
func Parse(s string) (Class, bool) {
	for c := Class(0); c < NumClasses; c++ {
		if names[c] == s {
			return c, true
		}
	}
	return Unlabelled, false
}

// All returns the labelled classes (every Class but Unlabelled) in order.
func All() []Class {
	out := make([]Class, 0, NumClasses-1)
	for c := Benign; c < NumClasses; c++ {
		out = append(out, c)
	}
	return out
}
