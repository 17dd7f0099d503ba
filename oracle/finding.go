package oracle

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
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

// maxQuoted is the most bytes of one datum — an argument, a path, data,
// a name — that a finding quotes: a longer one is cut there, followed by
// "… (N bytes in all)", so that a finding on a flood of data stays a few
// lines, in text and in JSON.
const maxQuoted = 256

// maxDetail bounds a finding's words as a whole, whatever they quote (a
// sandbox's panic message, say).
const maxDetail = 4096

// formatOp writes an op as a scenario line would: its kind and arguments,
// each token quoted where needed, and cut after maxQuoted bytes (see
// quoteData).
func formatOp(op core.Op) string {
	var b strings.Builder
	b.WriteString(quoteData(op.Kind))
	for _, a := range op.Args {
		b.WriteByte(' ')
		b.WriteString(quoteData(a))
	}
	return b.String()
}

// quoteData writes s as a scenario token (token.Format), or, when it is
// longer than maxQuoted bytes, its first maxQuoted bytes so written and
// "… (N bytes in all)".
func quoteData(s string) string {
	if len(s) <= maxQuoted {
		return token.Format(s)
	}
	return token.Format(cut(s, maxQuoted)) + allBytes(s)
}

// quote is %q of s, cut as quoteData cuts.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(cut(s, maxQuoted)) + allBytes(s)
}

// cut is s's first n bytes at most, not splitting a UTF-8 sequence.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i]
		}
	}
	return s[:n]
}

// allBytes is the note after a cut datum.
func allBytes(s string) string { return fmt.Sprintf("… (%d bytes in all)", len(s)) }

// entryText writes a journal entry as refworld.Entry.String does, its name
// and argument cut as quoteData cuts them.
func entryText(e refworld.Entry) string {
	if len(e.Name) <= maxQuoted && len(e.Arg) <= maxQuoted {
		return e.String()
	}
	short := e
	short.Name, short.Arg = cut(e.Name, maxQuoted), cut(e.Arg, maxQuoted)
	var notes []string
	if len(e.Name) > maxQuoted {
		notes = append(notes, fmt.Sprintf("name: %d bytes in all", len(e.Name)))
	}
	if len(e.Arg) > maxQuoted {
		notes = append(notes, fmt.Sprintf("argument: %d bytes in all", len(e.Arg)))
	}
	return short.String() + "… (" + strings.Join(notes, "; ") + ")"
}

// clipDetail bounds a finding's words to maxDetail bytes.
func clipDetail(d string) string {
	if len(d) <= maxDetail {
		return d
	}
	return cut(d, maxDetail) + allBytes(d)
}

// quoteList writes roots or names as ("a", "b"), or (none granted) when
// empty.
func quoteList(items []string) string {
	if len(items) == 0 {
		return "(none granted)"
	}
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = quote(s)
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

// describeData is describeResult with the data quoted (cut as quote cuts),
// for two results that differ in their data alone.
func describeData(r core.Result) string {
	if r.Data == "" {
		return describeResult(r) + " with no data"
	}
	return describeResult(core.Result{Kind: r.Kind, Hard: r.Hard}) + " with " + quote(r.Data)
}

// diffWindow is how many bytes firstDifference quotes on each side of it.
const diffWindow = 24

// firstDifference says where got and want, data that differ, first differ
// when either is longer than a finding quotes: the quoted starts may be
// the same, and a reader would not see where they part. It is "" for data
// quoted whole. whose names the one that has want.
func firstDifference(got, want, whose string) string {
	if len(got) <= maxQuoted && len(want) <= maxQuoted {
		return ""
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf(" (they first differ at byte %d: %s where %s has %s)", i, around(got, i), whose, around(want, i))
}

// around quotes s from diffWindow bytes before i to as many after it, with
// "…" where it is cut.
func around(s string, i int) string {
	from, to := max(0, i-diffWindow), min(len(s), i+diffWindow)
	q := strconv.Quote(s[from:to])
	if from > 0 {
		q = "…" + q
	}
	if to < len(s) {
		q += "…"
	}
	return q
}
