package textscan

import "strings"

// Clean is Go's path.Clean (Go 1.26, src/path/path.go, BSD-style licence),
// with one allocation where path.Clean makes two: a path that is not a
// prefix of p is written into a buffer on the stack (for paths up to 256
// bytes) instead of one on the heap, and only the result is copied out.
// core.Canonical calls it for the paths that are not clean already, which
// hostile scenarios are full of ("/work/./x", "/work/../etc"), several
// times an op. TestCleanIsPathClean (random paths up to 600 bytes,
// relative ones included), core's TestCanonicalIsPathClean (every short
// one) and FuzzPaths hold it to path.Clean.
func Clean(p string) string {
	if p == "" {
		return "."
	}
	// The output is read from p while it is a prefix of p (buf nil), and
	// written to buf from the first byte where it is not: path.Clean's
	// lazybuf, with room for buf on the stack.
	var room [256]byte
	var buf []byte
	w := 0
	put := func(c byte) {
		if buf == nil {
			if w < len(p) && p[w] == c {
				w++
				return
			}
			if len(p) <= len(room) {
				buf = room[:len(p)]
			} else {
				buf = make([]byte, len(p))
			}
			copy(buf, p[:w])
		}
		buf[w] = c
		w++
	}
	at := func(i int) byte {
		if buf != nil {
			return buf[i]
		}
		return p[i]
	}
	rooted := p[0] == '/'
	n := len(p)
	// As in path.Clean: r is the next byte of p to read, w the next byte
	// of the output to write, and dotdot where ".." must stop backtracking.
	r, dotdot := 0, 0
	if rooted {
		put('/')
		r, dotdot = 1, 1
	}
	for r < n {
		switch {
		case p[r] == '/':
			r++ // an empty element
		case p[r] == '.' && (r+1 == n || p[r+1] == '/'):
			r++ // a . element
		case p[r] == '.' && p[r+1] == '.' && (r+2 == n || p[r+2] == '/'):
			r += 2 // a .. element: remove up to the last separator
			switch {
			case w > dotdot:
				w--
				for w > dotdot && at(w) != '/' {
					w--
				}
			case !rooted:
				if w > 0 {
					put('/')
				}
				put('.')
				put('.')
				dotdot = w
			}
		default: // a real element: a separator first, unless it is the first
			if rooted && w != 1 || !rooted && w != 0 {
				put('/')
			}
			for ; r < n && p[r] != '/'; r++ {
				put(p[r])
			}
		}
	}
	switch {
	case w == 0:
		return "."
	case buf == nil:
		return p[:w]
	}
	return string(buf[:w])
}

// IsClean reports whether p is absolute and path.Clean would return it
// unchanged: no empty, "." or ".." element and no trailing slash. It is
// core.Canonical's fast path, whose result it never changes.
//
// Only a '/' followed by '/' or '.' can start an empty, "." or ".."
// element, so IsClean looks for those pairs eight bytes at a time and
// scans byte by byte only from a word that may hold one; in a path of 256
// bytes or more it finds the first pair with strings.Index instead
// (longIsClean).
func IsClean(p string) bool {
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
	if n >= 256 {
		return longIsClean(p)
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

// longIsClean is IsClean for a path of 256 bytes or more, whose first and
// last bytes IsClean has checked: it finds the first "//" and the first
// "/." with strings.Index, which the standard library vectorizes, and
// checks exactly only from there. Hostile paths are often kilobytes of one
// element, where a vectorized search beats eight bytes a step; below 256
// bytes the search's set-up costs more than it saves (docs/benchmarks.md).
func longIsClean(p string) bool {
	i, j := strings.Index(p, "//"), strings.Index(p, "/.")
	switch {
	case i < 0 && j < 0:
		return true
	case i < 0 || j >= 0 && j < i:
		i = j
	}
	return elementsClean(p, i)
}

// elementsClean is IsClean's exact path: after every '/' at or past
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
