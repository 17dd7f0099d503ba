package oracle

import (
	"fmt"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/token"
)

// Finding is one violated invariant, explained in plain words: which
// invariant, at which step (1-based; 0 for a whole-run check that no single
// op broke), and what was observed and why it breaks the grant.
type Finding struct {
	Invariant ID
	Step      int
	Detail    string
	// Hang is set on a total finding for an op (or a factory) that did not
	// return in time: minimizing it costs a timeout per failing candidate,
	// so the finding pipeline lowers the timeout and tries that op first.
	Hang bool
}

// String returns the finding as one line: "confinement: step 3: ...".
func (f Finding) String() string {
	if f.Step == 0 {
		return fmt.Sprintf("%s: %s", f.Invariant, f.Detail)
	}
	return fmt.Sprintf("%s: step %d: %s", f.Invariant, f.Step, f.Detail)
}

// FormatOp writes an op as a scenario line would: its kind and arguments,
// each token quoted where needed.
func FormatOp(op core.Op) string {
	var b strings.Builder
	b.WriteString(token.Format(op.Kind))
	for _, a := range op.Args {
		b.WriteByte(' ')
		b.WriteString(token.Format(a))
	}
	return b.String()
}

// quoteList writes roots or names as ("a", "b"), or (none granted) when
// empty.
func quoteList(items []string) string {
	if len(items) == 0 {
		return "(none granted)"
	}
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "(" + strings.Join(q, ", ") + ")"
}

// describeResult says what a result was in words: "ok with 6 bytes",
// "fs_read_denied", "max_ops (hard)".
func describeResult(r core.Result) string {
	var b strings.Builder
	b.WriteString(r.Kind.String())
	if r.Hard {
		b.WriteString(" (hard)")
	}
	if r.Data != "" {
		fmt.Fprintf(&b, " with %d bytes", len(r.Data))
	}
	return b.String()
}
