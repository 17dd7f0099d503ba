package gosandbox

import "strings"

// The deliberate defect, for showing what sbxfuzz finds.
//
// With GOSANDBOX_DEFECT=prefix in the environment when New is called, the
// allow-list check forgets the separator rule of SPEC §4 and becomes a raw
// string prefix test. Root "/work" then lets "/workshop/secret",
// "/work2/x" and "/work.bak/x" through: the "prefix sibling", a bug that
// real sandboxes ship. With the variable unset (or any other value) the
// sandbox is correct.
//
// Delete this file and the two marked lines in allowed (and the field and
// its line in New) when you copy the package.
const (
	defectEnv    = "GOSANDBOX_DEFECT"
	defectPrefix = "prefix"
)

// prefixSibling is the buggy check: clean "starts with" the root, nothing
// more. Do not copy it.
func prefixSibling(clean, root string) bool {
	return strings.HasPrefix(clean, root)
}
