package core

import (
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
	if isCanonical(p) {
		return p // the common case: a clean absolute path, left as it is
	}
	return clean(p)
}

// isCanonical reports whether p is absolute and path.Clean would return it
// unchanged: no empty, "." or ".." element and no trailing slash. It is a
// fast path for Canonical, whose result it never changes.
//
// Only a '/' followed by '/' or '.' can start an empty, "." or ".."
// element, so isCanonical looks for those pairs eight bytes at a time and
// scans byte by byte only from a word that may hold one. Few branches per
// byte matter twice (words.go).
func isCanonical(p string) bool {
	n := len(p)
	if n < 2 {
		return n == 1 && p[0] == '/'
	}
	if p[0] != '/' || p[n-1] == '/' {
		return false
	}
	// x is eight bytes of p (little-endian) and y the eight bytes after
	// each of them, so byte k of (x is '/') & (y is '/' or '.') marks a
	// pair. The zero-byte test (v-lo)&^v&hi never misses a zero byte; it
	// may flag a byte above a true zero, which only sends p to the exact
	// path. Written out rather than in a helper, so that it compiles
	// without calls.
	const lo, hi = lsbs, msbs
	const slash, dot = lo * '/', lo * '.'
	if n < 8 {
		x := loadShort(p, 0) // zero bytes pair with nothing
		a, b, c := x^slash, x>>8^slash, x>>8^dot
		if (a-lo)&^a&((b-lo)&^b|(c-lo)&^c)&hi == 0 {
			return true
		}
		return elementsClean(p, 0)
	}
	for i := 0; ; i += 8 {
		if i+8 > n {
			i = n - 8 // the last word overlaps the one before: checking twice is harmless
		}
		x, y := wordPair(p, i)
		a, b, c := x^slash, y^slash, y^dot
		if (a-lo)&^a&((b-lo)&^b|(c-lo)&^c)&hi != 0 {
			return elementsClean(p, i)
		}
		if i+8 >= n {
			return true
		}
	}
}

// elementsClean is isCanonical's exact path: after every '/' at or past
// from, reject an empty, "." or ".." element. The caller has checked the
// first and last bytes.
func elementsClean(p string, from int) bool {
	n := len(p)
	for i := from; i < n-1; i++ {
		if p[i] != '/' {
			continue
		}
		switch p[i+1] {
		case '/':
			return false
		case '.':
			if i+2 == n || p[i+2] == '/' || p[i+2] == '.' && (i+3 == n || p[i+3] == '/') {
				return false
			}
		}
	}
	return true
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
	if !dotPairMaybe(p) {
		return false // the common case: no two dots in a row
	}
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' && p[i] != '\\' {
			continue
		}
		if i-start == 2 && p[start] == '.' && p[start+1] == '.' {
			return true
		}
		start = i + 1
	}
	return false
}

// wordPair returns the eight bytes of p at i (i+8 <= len(p)) and the eight
// bytes after each of them, a zero byte past the end of p (neither a slash
// nor a dot).
func wordPair(p string, i int) (x, y uint64) {
	x = load(p, i)
	y = x >> 8
	if i+8 < len(p) {
		y |= uint64(p[i+8]) << 56
	}
	return x, y
}

// dotPairMaybe reports whether p may hold two dots in a row: false only
// when it holds none. It looks eight bytes at a time, as isCanonical does
// (a call to strings.Contains cost more than the whole test on the short
// paths of most ops, and the reference asks it of every fs op, the
// oracle's confinement check again): x is eight bytes of p and y the eight
// bytes after each of them, so byte k of (x is '.') & (y is '.') marks a
// pair. The zero-byte test may flag a byte above a true zero, which only
// sends p to HasTraversal's exact loop.
func dotPairMaybe(p string) bool {
	const lo, hi, dot = lsbs, msbs, lsbs * '.'
	n := len(p)
	if n >= 64 {
		return strings.Contains(p, "..") // vectorized: a long path costs it less than eight bytes a step
	}
	if n < 8 {
		x := loadShort(p, 0) ^ dot // the zero padding is no dot
		y := x>>8 | 0x2e<<56       // past the end: no dot either
		return (x-lo)&^x&((y-lo)&^y)&hi != 0
	}
	for i := 0; ; i += 8 {
		if i+8 > n {
			i = n - 8 // the last word overlaps the one before: checking twice is harmless
		}
		x, y := wordPair(p, i)
		x, y = x^dot, y^dot
		if (x-lo)&^x&((y-lo)&^y)&hi != 0 {
			return true
		}
		if i+8 >= n {
			return false
		}
	}
}

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
