package mutants

import "strings"

// idnaASCII is host with each label that is not ASCII written as its
// IDNA A-label ("bücher" is "xn--bcher-kva"), RFC 3492's Punycode, the
// form a URL parser (WHATWG's host parser, Python's idna codec) hands a
// guard. Case and the other UTS 46 mappings are left alone: this is the
// encoding step alone.
func idnaASCII(host string) string {
	labels := strings.Split(host, ".")
	for i, l := range labels {
		if strings.IndexFunc(l, func(r rune) bool { return r >= 0x80 }) >= 0 {
			if enc, ok := punycode(l); ok {
				labels[i] = "xn--" + enc
			}
		}
	}
	return strings.Join(labels, ".")
}

// punycode encodes s as RFC 3492 section 6.3 does.
func punycode(s string) (string, bool) {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	adapt := func(delta, numPoints int, first bool) int {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / numPoints
		k := 0
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		return k + (base-tmin+1)*delta/(delta+skew)
	}
	digit := func(d int) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	runes := []rune(s)
	var out []byte
	for _, r := range runes {
		if r < 0x80 {
			out = append(out, byte(r))
		}
	}
	b := len(out)
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	n, delta, bias := initialN, 0, initialBias
	for h < len(runes) {
		m := int(^uint(0) >> 1)
		for _, r := range runes {
			if int(r) >= n && int(r) < m {
				m = int(r)
			}
		}
		delta += (m - n) * (h + 1)
		n = m
		for _, r := range runes {
			if int(r) < n {
				delta++
			}
			if int(r) == n {
				q := delta
				for k := base; ; k += base {
					t := k - bias
					if t < tmin {
						t = tmin
					} else if t > tmax {
						t = tmax
					}
					if q < t {
						break
					}
					out = append(out, digit(t+(q-t)%(base-t)))
					q = (q - t) / (base - t)
				}
				out = append(out, digit(q))
				bias = adapt(delta, h+1, h == b)
				delta = 0
				h++
			}
		}
		delta++
		n++
	}
	return string(out), true
}
