package spec

import (
	"net/netip"
	"strings"
	"testing"
)

// TestParseInetAtonAgreesWithStrtoul compares ParseInetAton, which cuts
// parts at dots and reads each with strconv, with strtoulInetAton, a byte
// scanner that reads parts the way glibc's inet_aton calls strtoul, on
// every string of up to six bytes over the bytes that matter and on longer
// spellings at the edges of each part's range.
func TestParseInetAtonAgreesWithStrtoul(t *testing.T) {
	const alphabet = "019x.8 a"
	n := 0
	check := func(s string) {
		got, gotOK := ParseInetAton(s)
		want, wantOK := strtoulInetAton(s)
		if got != want || gotOK != wantOK {
			t.Fatalf("ParseInetAton(%q) = %v, %v; the strtoul reading says %v, %v", s, got, gotOK, want, wantOK)
		}
	}
	var walk func(string, int)
	walk = func(s string, depth int) {
		n++
		check(s)
		if depth > 0 {
			for i := range len(alphabet) {
				walk(s+alphabet[i:i+1], depth-1)
			}
		}
	}
	walk("", 6)
	for _, s := range []string{"4294967295", "4294967296", "0xffffffff", "0x100000000", "037777777777", "040000000000",
		"1.16777215", "1.16777216", "1.2.65535", "1.2.65536", "1.2.3.255", "1.2.3.256", "0x7f.0.0.1", "0X7F.0X0.0.01",
		"99999999999999999999999", "0x0000000000000000001", "1.2.3.4\t", "1.2.3.4\v5", strings.Repeat("0", 40) + "1"} {
		check(s)
	}
	if n < 100000 {
		t.Fatalf("only %d strings", n)
	}
}

// strtoulInetAton parses s as glibc's inet_aton(3) does, one byte at a
// time: each part is read as strtoul(s, &end, 0) reads it, after a check
// for a leading digit; a dot or, after the last part, white space or the
// end must follow it.
func strtoulInetAton(s string) (netip.Addr, bool) {
	var parts [4]uint32
	n := 0
	i := 0
	for {
		v, next, ok := strtoulPart(s, i)
		if !ok {
			return netip.Addr{}, false
		}
		i = next
		if i < len(s) && s[i] == '.' {
			if n == 3 || v > 0xff {
				return netip.Addr{}, false
			}
			parts[n] = v
			n++
			i++
			continue
		}
		if i < len(s) && !isCSpace(rune(s[i])) {
			return netip.Addr{}, false
		}
		// The last part fills the bytes the earlier ones left.
		if v > uint32(0xffffffff)>>(8*n) {
			return netip.Addr{}, false
		}
		word := v
		for j := 0; j < n; j++ {
			word |= parts[j] << (24 - 8*j)
		}
		return netip.AddrFrom4([4]byte{byte(word >> 24), byte(word >> 16), byte(word >> 8), byte(word)}), true
	}
}

// strtoulPart reads one part of an inet_aton address at s[i:] the way
// strtoul(s, &end, 0) does after inet_aton has checked for a leading digit.
// It returns the value, the index after the part, and false when the part
// does not start with a digit or exceeds 32 bits.
func strtoulPart(s string, i int) (uint32, int, bool) {
	if i >= len(s) || !isDigit(s[i]) {
		return 0, i, false
	}
	base := uint64(10)
	if s[i] == '0' {
		base = 8
		if i+2 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') && hexVal(s[i+2]) >= 0 {
			base = 16
			i += 2
		}
	}
	var v uint64
	for ; i < len(s); i++ {
		d := hexVal(s[i])
		if d < 0 || uint64(d) >= base {
			break
		}
		v = v*base + uint64(d)
		if v > 0xffffffff {
			return 0, i, false
		}
	}
	return uint32(v), i, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
