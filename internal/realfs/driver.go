// Package realfs attacks sandboxes that act on the real disk (SPEC §13): it
// materializes a scenario's world as a directory tree, drives a real
// sandbox over it, and observes what the sandbox really did — the tree's
// changes and the data it returned — since such a sandbox keeps no journal
// the harness could read.
package realfs

import "github.com/sbxfuzz/sbxfuzz/core"

// Verdict is a real sandbox's answer to an op, as a class: a real sandbox
// says "denied" or "no such file", never which SPEC §2 kind of denial.
type Verdict uint8

// The verdict classes. The zero Verdict is no answer.
const (
	Allowed     Verdict = iota + 1 // the op's effect happened
	Denied                         // the sandbox refused the op
	NotFound                       // permitted, but nothing was there
	Unsupported                    // the sandbox cannot express the op: not judged
	// Refused is a refusal whose words cannot tell a denial from a missing
	// file ("Parent directory does not exist"): whether the op was let
	// through is still judged, and which of the two refusals it was is
	// taken from the SPEC.
	Refused
)

var verdictNames = [...]string{"", "allowed", "denied", "not found", "unsupported", "refused"}

// String returns "allowed", "denied", "not found", "unsupported" or
// "refused".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return "verdict?"
}

// Outcome is what a real sandbox answered to one op.
type Outcome struct {
	Verdict Verdict
	Data    string // for an allowed fs_read: the content it returned
	Detail  string // the sandbox's own words (an error text): why it refused, for the stricter counts
	// Whole is set on an allowed fs_read whose answer the driver could not
	// find the content in (an MCP profile's result does not fit it): the
	// whole answer was taken as the file's bytes.
	Whole bool
	// Numbered is set on an allowed fs_read whose content is the file's
	// with a line number before each line, as cat -n writes them, which
	// the driver was not told to cut (an MCP profile's line_prefix): the
	// content stands as the server gave it, and the run says how to cut
	// the numbers.
	Numbered bool
	// Carried is what else the answer carried that may hold a file's
	// bytes (an MCP result's images, embedded resources beside its words,
	// structured content): looked through for a forbidden file, never
	// judged as words or content.
	Carried string
}

// Driver drives one real sandbox over one materialized Tree. The harness
// calls it from one goroutine at a time.
type Driver interface {
	// Do performs op, whose paths are world paths: the driver maps them
	// into the tree with Tree.Path. An error is a failure of the sandbox
	// itself — it crashed, hung, or broke its protocol — and is a total
	// finding on the op; a refusal is an Outcome, never an error.
	Do(op core.Op) (Outcome, error)
	// Close stops the sandbox, or gives it back to a pool; after Close
	// the tree may be removed or rebuilt.
	Close() error
}
