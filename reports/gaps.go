package reports

import (
	"fmt"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/oracle"
)

// cell names an (invariant, attack class) cell of the coverage matrix.
type cell struct {
	inv   oracle.ID
	class attack.Class
}

// notNetFetch is why no-internal-egress counts no check for classes whose
// ops are never net_fetch ops. The check still reads every op's journal, so
// a sandbox that fetched during such an op would still be caught.
const notNetFetch = "no-internal-egress counts a check only on net_fetch ops, and "

// structural lists the cells no campaign can fill, each with the reason.
// A gap not listed here is unexplained: the generators should reach it.
var structural = map[cell]string{
	{oracle.NoInternalEgress, attack.UnknownTool}: notNetFetch +
		"every unknown-tool op is a tool op (a name outside the grant); its journal, which the check still reads, holds no fetch",
	{oracle.NoInternalEgress, attack.ToolVariant}: notNetFetch +
		"every tool-variant op is a tool op (a respelled granted name); its journal, which the check still reads, holds no fetch",
	{oracle.NoInternalEgress, attack.UnknownOp}: notNetFetch +
		"an unknown-op op has a kind that is none of the four (exec, NET_FETCH, \"fs_read \"), so it is never a net_fetch op; its journal, which the check still reads, must stay empty",
	{oracle.NoInternalEgress, attack.SymlinkEscape}: notNetFetch +
		"every symlink-escape op is an fs_read or fs_write through a link out of its root, or a near miss" + linksNoFetch,
	{oracle.NoInternalEgress, attack.SymlinkParent}: notNetFetch +
		"every symlink-parent op is an fs_write or fs_read of a file under a directory link" + linksNoFetch,
	{oracle.NoInternalEgress, attack.SymlinkLoop}: notNetFetch +
		"every symlink-loop op is an fs_read or fs_write through a loop or a chain of 40 or 41 links" + linksNoFetch,
}

// linksNoFetch ends the explanations of the symlink classes: links live in
// the VFS, and only fs_read and fs_write resolve paths (SPEC §13).
const linksNoFetch = " (links live in the VFS, which no fetch reaches); its journal, which the check still reads, holds no fetch"

// Explain returns why invariant inv is never checked on ops of class c, and
// false when there is no structural reason: then a gap in that cell of a
// full campaign (Report.Full) is the generators' fault.
func Explain(inv oracle.ID, c attack.Class) (string, bool) {
	why, ok := structural[cell{inv, c}]
	return why, ok
}

// unexplainedCount words n gaps or points nothing explains: "n
// unexplained" in a full campaign (bold in Markdown when n > 0), "n not hit
// in N checks" in a short one, and "0 unexplained" in either when n is 0.
func (r *Report) unexplainedCount(d *doc, n int) string {
	if !r.Full() && n > 0 {
		return fmt.Sprintf("%d %s", n, r.unexplained())
	}
	s := fmt.Sprintf("%d unexplained", n)
	if n > 0 && d != nil {
		s = d.strong(s)
	}
	return s
}

// shortNote says, in a short campaign that left cells or points unhit for
// no known reason, why the report does not call them gaps; "" otherwise.
func (r *Report) shortNote() string {
	cells, points := len(r.UnexplainedGaps()), len(r.UnexplainedDimensionGaps())
	if r.Full() || cells+points == 0 {
		return ""
	}
	var what []string
	if cells > 0 {
		what = append(what, plural(cells, "cell"))
	}
	if points > 0 {
		what = append(what, plural(points, "dimension point"))
	}
	return fmt.Sprintf("A short campaign (%d checks; the default is %d): what no check reached for no known reason — %s — is listed as not hit in %d checks, not as a gap. Only a campaign of at least %d checks calls such a gap the generators' fault.",
		r.Checks, FullChecks, strings.Join(what, " and "), r.Checks, FullChecks)
}

// unexplainedList words the classes of an invariant's cells nothing
// explains, for the invariants table.
func (r *Report) unexplainedList(d *doc, classes []string) string {
	if !r.Full() {
		return r.unexplained() + ": " + strings.Join(classes, ", ")
	}
	return d.strong("unexplained: " + strings.Join(classes, ", "))
}

// unhitLegend explains, after a table's other marks, how it shows what
// (a cell, a point) no check reached for no known reason: GAP in a full
// campaign, the generators' fault; in a short one, shortMark, merely not
// hit.
func (r *Report) unhitLegend(shortMark, what string) string {
	if r.Full() {
		return "GAP: " + what + ", for no known reason — the generators' fault."
	}
	return fmt.Sprintf("%s: %s in these %d checks, for no known reason; in a campaign this short that is sample size, not yet a gap: only one of at least %d checks (the default) calls it a gap, the generators' fault.",
		shortMark, what, r.Checks, FullChecks)
}
