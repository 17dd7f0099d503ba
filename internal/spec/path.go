package spec

import (
	"path"
	"strings"
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
	if isClean(p) {
		return p // most paths, and every path a world resolved: nothing to clean
	}
	return path.Clean(p)
}

// isClean reports whether p is absolute and path.Clean would return it as
// it is: "/", or a path that does not end in '/' and in which no '/' is
// followed by an empty element (another '/'), "." or "..".
func isClean(p string) bool {
	if p == "/" {
		return true
	}
	if !strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return false
	}
	for i := range len(p) - 1 { // the last byte is no '/'
		if p[i] == '/' && (p[i+1] == '/' || p[i+1] == '.' && isDotElem(p[i+1:])) {
			return false
		}
	}
	return true
}

// isDotElem reports whether e, a path from one of its elements on, starts
// with the element "." or "..".
func isDotElem(e string) bool {
	elem, _, _ := strings.Cut(e, "/")
	return elem == "." || elem == ".."
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
func HasTraversal(p string) bool {
	if !strings.Contains(p, "..") {
		return false // most paths: no segment can be ".."
	}
	for segment := range strings.FieldsFuncSeq(p, isPathSeparator) {
		if segment == ".." {
			return true
		}
	}
	return false
}

func isPathSeparator(r rune) bool { return r == '/' || r == '\\' }

// UnderAllowlist reports whether the canonical form of p is one of the
// canonical roots or lies below one, with a path boundary (SPEC §4):
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
		if underRoot(c, Canonical(r)) {
			return true
		}
	}
	return false
}

// UnderRoots is UnderAllowlist for a path c and roots that are canonical
// already (a grant cleans its roots once).
func UnderRoots(c string, roots []string) bool {
	for _, r := range roots {
		if underRoot(c, r) {
			return true
		}
	}
	return false
}

// underRoot reports whether the canonical path c is the canonical root r or
// below it: r followed by a '/' ("/" itself ends with one).
func underRoot(c, r string) bool {
	if c == r {
		return true
	}
	dir := strings.TrimSuffix(r, "/") // "/" is "": every absolute path is below it
	return len(c) > len(dir) && c[len(dir)] == '/' && strings.HasPrefix(c, dir)
}
