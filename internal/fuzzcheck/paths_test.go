package fuzzcheck

import (
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// TestPathsSpecExamples: SPEC §4's examples, answered by hand, through both
// formulations (CheckPaths compares them with core).
func TestPathsSpecExamples(t *testing.T) {
	tests := []struct {
		p, roots  string
		traversal bool
		clean     string
		under     bool
		reason    string
	}{
		{"/work/../etc", "/work/", true, "/etc", false, "a .. segment"},
		{`\work\..\etc`, "/work", true, `\work\..\etc`, false, "backslash separates segments for traversal, not for Clean"},
		{"..", "/", true, "..", false, "a lone .."},
		{"/work/..hidden", "/work/", false, "/work/..hidden", true, "..hidden is a name"},
		{"/work/...", "/work", false, "/work/...", true, "... is a name"},
		{"/work/te..st", "/work", false, "/work/te..st", true, ".. inside a name"},
		{"/work/x", "/work/", false, "/work/x", true, "below the root"},
		{"/work", "/work/", false, "/work", true, "the root itself"},
		{"/workshop/x", "/work/", false, "/workshop/x", false, "a prefix sibling"},
		{"/work2", "/work", false, "/work2", false, "a prefix sibling without slash"},
		{"/etc/passwd", "/", false, "/etc/passwd", true, "/ holds every absolute path"},
		{"/work/./x", "/data\n/work/", false, "/work/x", true, "dot segment, second root"},
		{"//work//x/", "/work/.", false, "/work/x", true, "repeated and trailing slashes, a root with a dot"},
		{"/work/%2e%2e", "/work", false, "/work/%2e%2e", true, "percent-encodings are literal"},
		{"/work/\uff0e\uff0e/x", "/work", false, "/work/\uff0e\uff0e/x", true, "fullwidth dots are literal"},
		{"work/x", "/work", false, "work/x", false, "relative path, absolute root"},
		{"", "/work", false, ".", false, "empty path cleans to ."},
		{"../a/..", ".", true, "..", false, "Clean keeps a leading .. of a relative path"},
	}
	for _, tt := range tests {
		if got := spec.HasTraversal(tt.p); got != tt.traversal {
			t.Errorf("HasTraversal(%q) = %v: %s", tt.p, got, tt.reason)
		}
		if got := slowClean(tt.p); got != tt.clean {
			t.Errorf("slowClean(%q) = %q, want %q: %s", tt.p, got, tt.clean, tt.reason)
		}
		if got := slowUnder(tt.p, splitRoots(tt.roots)); got != tt.under {
			t.Errorf("slowUnder(%q, %q) = %v: %s", tt.p, tt.roots, got, tt.reason)
		}
		if err := CheckPaths(tt.p, tt.roots); err != nil {
			t.Errorf("%v: %s", err, tt.reason)
		}
	}
}

// TestCheckPathsFindsAWrongHelper: CheckPaths's comparison fails on
// helpers that get SPEC §4 wrong: a Canonical that keeps a trailing
// slash, an UnderAllowlist that compares prefixes of bytes (/workshop
// under /work).
func TestCheckPathsFindsAWrongHelper(t *testing.T) {
	keepsSlash := func(p string) string {
		if c := spec.Canonical(p); strings.HasSuffix(p, "/") && c != "/" {
			return c + "/"
		}
		return spec.Canonical(p)
	}
	if err := checkPaths("/work/x/", "/work", keepsSlash, spec.UnderAllowlist); err == nil {
		t.Error("a Canonical that keeps the trailing slash passed")
	}
	bytePrefix := func(p string, roots []string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return strings.HasPrefix(spec.Canonical(p), strings.TrimSuffix(r, "/")) })
	}
	if err := checkPaths("/workshop/x", "/work/", spec.Canonical, bytePrefix); err == nil {
		t.Error("an UnderAllowlist that takes /workshop for under /work passed")
	}
}
