package core

import (
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/textscan"
)

// Canonical returns the canonical form of p: Go's path.Clean. It is the key
// under which the VFS stores content and the string the allow-list judges.
// Percent-encodings, fullwidth dots and other lookalikes are literal bytes
// and are never decoded (SPEC §4):
//
//	Canonical("/work/./x")     == "/work/x"
//	Canonical("//work//x/")    == "/work/x"
//	Canonical("/work/%2e%2e")  == "/work/%2e%2e"
//	Canonical("")              == "."
func Canonical(p string) string {
	if textscan.IsClean(p) {
		return p // the common case: a clean absolute path, left as it is
	}
	return textscan.Clean(p)
}

// HasTraversal reports whether p, split on both '/' and '\', has a segment
// that is exactly "..". It judges the raw string, before canonicalization
// erases the evidence (SPEC §4):
//
//	HasTraversal("/work/../etc")  == true
//	HasTraversal(`\work\..\etc`)  == true
//	HasTraversal("..")            == true
//	HasTraversal("/work/..hidden") == false
//	HasTraversal("/work/...")     == false
//	HasTraversal("/work/te..st")  == false
func HasTraversal(p string) bool { return textscan.HasDotDotSegment(p) }

// UnderAllowlist reports whether the canonical form of p is one of the
// roots or lies below one, with a path boundary (SPEC §4):
//
//	UnderAllowlist("/work/x", {"/work/"})      == true
//	UnderAllowlist("/work", {"/work/"})        == true
//	UnderAllowlist("/workshop/x", {"/work/"})  == false
//	UnderAllowlist("/work2", {"/work"})        == false
//	UnderAllowlist("/etc/passwd", {"/"})       == true
//
// It does not look for traversal; callers check HasTraversal first.
func UnderAllowlist(p string, roots []string) bool {
	c := Canonical(p)
	for _, r := range roots {
		if underRoot(c, newRoot(r)) {
			return true
		}
	}
	return false
}

// root is an allow-list root prepared once: its canonical form and the
// prefix, with boundary, that paths below it start with.
type root struct {
	clean  string // Canonical(r)
	prefix string // strings.TrimRight(clean, "/") + "/"
}

func newRoot(r string) root {
	c := Canonical(r)
	if n := len(c); c != "/" && len(r) > n && r[n] == '/' && r[:n] == c {
		return root{clean: c, prefix: r[:n+1]} // a root written "/work/": no new string
	}
	return root{clean: c, prefix: strings.TrimRight(c, "/") + "/"}
}

// underRoot is UnderAllowlist's test for one root, on an already canonical
// path.
func underRoot(canonical string, r root) bool {
	return canonical == r.clean || strings.HasPrefix(canonical, r.prefix)
}

// underAny is underRoot over a prepared root list.
func underAny(canonical string, roots []root) bool {
	for _, r := range roots {
		if underRoot(canonical, r) {
			return true
		}
	}
	return false
}
