package reports

import (
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
// false when there is no structural reason: then a gap in that cell is the
// generators' fault.
func Explain(inv oracle.ID, c attack.Class) (string, bool) {
	why, ok := structural[cell{inv, c}]
	return why, ok
}
