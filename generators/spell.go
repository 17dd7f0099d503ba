package generators

// titleASCII upper-cases the first ASCII letter of s.
func titleASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'a' <= c && c <= 'z' {
			return s[:i] + string(rune(c-'a'+'A')) + s[i+1:]
		}
	}
	return s
}

// homoglyph replaces the first letter of s that has a Cyrillic lookalike.
func homoglyph(s string) string {
	for i := 0; i < len(s); i++ {
		for _, h := range homoglyphs {
			if s[i] == h.ascii {
				return s[:i] + h.glyph + s[i+1:]
			}
		}
	}
	return s + "\u0430"
}

// upperASCII upper-cases ASCII letters only.
func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
