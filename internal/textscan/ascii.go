package textscan

// ASCIINoNUL reports whether every byte of a is in 0x01–0x7F. It reads a
// word at a time, the last word overlapping the one before it (a string
// shorter than a word is padded with spaces), so it has no byte loop.
func ASCIINoNUL(a string) bool {
	bad := func(v uint64) bool { return ((v-lsbs)&^v|v)&msbs != 0 } // a zero byte, or a high one
	n := len(a)
	if n < 8 {
		return !bad(loadShort(a, lsbs*' '))
	}
	for i := 0; i+8 < n; i += 8 {
		if bad(load(a, i)) {
			return false
		}
	}
	return !bad(load(a, n-8))
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
// string; other bytes are left as they are.
func LowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
