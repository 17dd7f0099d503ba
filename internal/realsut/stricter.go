package realsut

import (
	"path"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// The reasons a real sandbox's refusal of an op the model allows is
// counted under (SPEC §14, "stricter"): short, stable labels, derived
// from what the harness observes. An op gets the first that fits.
const (
	// ReasonTrimmedPath: the path begins or ends with white space or a
	// quote, which some servers strip before they look (mcp.Trimmed).
	ReasonTrimmedPath = "trimmed-path"
	// ReasonTrailingSlash: the path ends in "/" or "/.", which the model
	// cleans away (SPEC §4) and a file system reads as naming a
	// directory: a file, or a link to one, so named is not found
	// (ENOTDIR, EISDIR).
	ReasonTrailingSlash = "trailing-slash"
	// ReasonDanglingWrite: a write through a link whose target does not
	// exist yet, which SPEC §13 lets create it (refused since the fix of
	// CVE-2025-53109 by @modelcontextprotocol/server-filesystem).
	ReasonDanglingWrite = "dangling-write"
	// ReasonParentMissing: the sandbox's own words name a missing parent
	// directory.
	ReasonParentMissing = "parent-missing"
	// ReasonLinkLoop: the path's links loop, or pass SPEC §13's 40, which
	// the model answers not_found and a sandbox may deny: where it ends is
	// no place the grant was asked about.
	ReasonLinkLoop = "link-loop"
	// ReasonReadThroughLink and ReasonWriteThroughLink: the path leads
	// through a link to a place the grant allows.
	ReasonReadThroughLink  = "read-through-link"
	ReasonWriteThroughLink = "write-through-link"
	// ReasonUncleanPath: the path is not in clean form (a "//", a "."
	// segment), which the model cleans (SPEC §4) and a sandbox that
	// matches its roots against the path as written refuses.
	ReasonUncleanPath = "unclean-path"
	// ReasonOther: none of the above.
	ReasonOther = "other"
)

// StricterReasons lists every reason, in the order they are tried.
func StricterReasons() []string {
	return []string{ReasonTrimmedPath, ReasonTrailingSlash, ReasonDanglingWrite, ReasonParentMissing, ReasonLinkLoop, ReasonReadThroughLink, ReasonWriteThroughLink, ReasonUncleanPath, ReasonOther}
}

// stricter reports whether the real sandbox denied what the model allows
// (SPEC §14): its verdict is a refusal (denied, refused, not found) where
// the model gives ok, or a denial where the model gives not_found (the
// op passed the model's checks and found nothing; the sandbox did not
// let it look). A refusal where the model refuses too is no such case
// (which refusal it was is judged as ever), nor is a refusal that changed
// the tree: what a refused op did is judged, whatever the model says.
func stricter(model core.Kind, v realfs.Verdict, changed bool) bool {
	if changed {
		return false
	}
	switch model {
	case core.OK:
		return v == realfs.Denied || v == realfs.Refused || v == realfs.NotFound
	case core.NotFound:
		return v == realfs.Denied
	}
	return false
}

// modelKind is the kind SPEC §5 gives op (a well-formed fs op) in the
// harness's world as it is now, without its effect and without a journal
// entry: path_traversal, denied (lexically or on the resolved path),
// not_found (a loop of links, or a read of nothing), or ok.
func (b *bridge) modelKind(op core.Op) core.Kind {
	p := op.Args[0]
	may, denied := b.grant.MayRead, core.FSReadDenied
	if op.Kind == core.OpWrite {
		may, denied = b.grant.MayWrite, core.FSWriteDenied
	}
	switch r, ok := b.links.Resolve(p); {
	case spec.HasTraversal(p):
		return core.PathTraversal
	case !may(p):
		return denied
	case !ok:
		return core.NotFound
	case !may(r):
		return denied
	case op.Kind == core.OpRead:
		if _, there := b.world.Lookup(r); !there {
			return core.NotFound
		}
	}
	return core.OK
}

// stricterReason labels a stricter refusal of op from what can be
// observed: the path, the world's links, and the sandbox's own words.
func (b *bridge) stricterReason(op core.Op, detail string) string {
	p := op.Args[0]
	c := spec.Canonical(p)
	r, ok := b.links.Resolve(c)
	switch {
	case mcp.Trimmed(p):
		return ReasonTrimmedPath
	case strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/."):
		return ReasonTrailingSlash
	case b.danglingWrite(op):
		return ReasonDanglingWrite
	case strings.Contains(strings.ToLower(detail), "parent"):
		return ReasonParentMissing
	case !ok:
		return ReasonLinkLoop
	case r != c && op.Kind == core.OpRead:
		return ReasonReadThroughLink
	case r != c:
		return ReasonWriteThroughLink
	case path.Clean(p) != p:
		return ReasonUncleanPath
	}
	return ReasonOther
}

// PromisesAll, in a profile's promises, stands for every reason.
const PromisesAll = door.PromisesAll
