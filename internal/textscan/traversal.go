package textscan

import "strings"

// HasDotDotSegment reports whether p, split on both '/' and '\', has a
// segment that is exactly "..": core.HasTraversal, which documents it.
func HasDotDotSegment(p string) bool {
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

// dotPairMaybe reports whether p may hold two dots in a row: false only
// when it holds none. It looks eight bytes at a time, as IsClean does
// (a call to strings.Contains cost more than the whole test on the short
// paths of most ops, and the reference asks it of every fs op, the
// oracle's confinement check again): x is eight bytes of p and y the eight
// bytes after each of them, so byte k of (x is '.') & (y is '.') marks a
// pair. The zero-byte test may flag a byte above a true zero, which only
// sends p to HasDotDotSegment's exact loop.
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
