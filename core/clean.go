package core

// clean is Go's path.Clean (Go 1.26, src/path/path.go, BSD-style licence),
// with one allocation where path.Clean makes two: a path that is not a
// prefix of p is written into a buffer on the stack (for paths up to 256
// bytes) instead of one on the heap, and only the result is copied out.
// Canonical calls it for the paths that are not canonical already, which
// hostile scenarios are full of ("/work/./x", "/work/../etc"), several
// times an op. TestCleanIsPathClean (random paths up to 600 bytes,
// relative ones included), TestCanonicalIsPathClean (every short one) and
// FuzzPaths hold it to path.Clean.
func clean(p string) string {
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
