package spec

import (
	"net/url"
	"strings"
)

// Location is the Location header of a world's answer to a redirect route
// whose URL is url (SPEC §10, §14): url byte for byte, but for each byte a
// header value cannot carry — a control byte, which Go's HTTP reader
// refuses, so that a proxy or a door reading the answer would fail on it;
// CR and LF, which would end the header; DEL; space and tab, which a
// reader trims at its ends — written %XX, wherever it is, as a URL
// escapes it. Every client then reads the answer; the answer's body
// carries url exactly. (A browser would strip such bytes from a Location
// instead: a URL the generators draw has none.)
func Location(url string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(url); i++ {
		if c := url[i]; c <= ' ' || c == 0x7f {
			b.Write([]byte{'%', hex[c>>4], hex[c&0xf]})
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// StaysOnHost reports whether a redirect's Location, loc, leads to host
// again (SPEC §8): a path, or a URL whose host is host as a lookup reads
// it (LookupKey: case, a trailing dot, a port).
func StaysOnHost(loc, host string) bool {
	u, err := url.Parse(Location(loc))
	return err == nil && (u.Host == "" || LookupKey(u.Host) == LookupKey(host))
}
