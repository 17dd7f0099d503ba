package textscan

import "encoding/binary"

// ASCIINoNUL reports whether every byte of a is in 0x01–0x7F. It reads a
// word at a time (a string shorter than a word padded with spaces, the
// last word overlapping the one before it), four words a step, and tests
// once at the end, without a branch a word: or collects the high bits, so
// a byte from 0x80 up shows there; and, when no byte has its high bit,
// adding 0x7F to every byte carries into no other and sets a byte's high
// bit exactly when the byte is not zero, so and keeps every high bit only
// when no byte is NUL. Arguments of kilobytes are common in hostile ops.
func ASCIINoNUL(a string) bool {
	const low7 = lsbs * 0x7f
	n := len(a)
	if n < 8 {
		w := loadShort(a, lsbs*' ')
		return w&msbs == 0 && (w+low7)&msbs == msbs
	}
	or, and := uint64(0), ^uint64(0)
	i := 0
	for ; i+32 <= n; i += 32 {
		// One slice of the step's 32 bytes, read at constant offsets: one
		// bounds check a step, not four, which made long arguments scan
		// at a third of the speed.
		b := []byte(a[i : i+32])
		w0, w1, w2, w3 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])
		or |= w0 | w1 | w2 | w3
		and &= (w0 + low7) & (w1 + low7) & (w2 + low7) & (w3 + low7)
	}
	for ; i+8 < n; i += 8 {
		w := load(a, i)
		or, and = or|w, and&(w+low7)
	}
	w := load(a, n-8)
	or, and = or|w, and&(w+low7)
	return or&msbs == 0 && and&msbs == msbs
}

// HasUpperASCII reports whether s has a byte in 'A'–'Z'. It reads a word
// at a time (Bit Twiddling Hacks' hasbetween, exact for every byte value),
// the last word overlapping the one before it, so it has no byte loop.
func HasUpperASCII(s string) bool {
	const low7 = lsbs * 0x7f
	upper := func(x uint64) bool { // a byte in ('A'-1, 'Z'+1)
		t := x & low7
		return (lsbs*(127+'Z'+1)-t)&^x&(t+lsbs*(127-('A'-1)))&^low7 != 0
	}
	n := len(s)
	if n < 8 {
		return upper(loadShort(s, 0)) // zero bytes are no letters
	}
	for i := 0; i+8 < n; i += 8 {
		if upper(load(s, i)) {
			return true
		}
	}
	return upper(load(s, n-8))
}

// LowerASCII returns s with the ASCII letters A–Z lowered, in a new
// string; other bytes are left as they are. Like IndexNotIn it is kept out
// of line, so that its loop stays plain in the libFuzzer build.
//
//go:noinline
func LowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// IndexNotIn returns the index of the first byte of s that set does not
// hold, or -1 when it holds them all: the byte loop of core's test of a
// grant's host and tool names, built plain with the other scans here. It
// is kept out of line: inlined into core, its loop would be compiled, and
// instrumented, as core's.
//
//go:noinline
func IndexNotIn(s string, set *[256]bool) int {
	for i := 0; i < len(s); i++ {
		if !set[s[i]] {
			return i
		}
	}
	return -1
}
