package spec

import "strings"

// URLCarriesHost reports whether a URL carries host unchanged (SPEC §14,
// "What HTTP carries"): a name of RFC 3986's unreserved and sub-delim
// characters, an IPv4 spelling, or an IPv6 literal without a zone, bare or
// in both brackets.
func URLCarriesHost(host string) bool {
	if a, ok := ParseIPv6Literal(host); ok {
		return a.Zone() == "" && (host[0] == '[') == (host[len(host)-1] == ']')
	}
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		if !isRegNameByte(host[i]) {
			return false
		}
	}
	return true
}

// isRegNameByte reports whether c stands for itself in a URL's host (RFC
// 3986 reg-name: unreserved and sub-delims; no percent-encoding).
func isRegNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~!$&'()*+,;=", c) >= 0
}

// URLCarriesPath reports whether a URL carries path, and its query,
// unchanged to the server that answers it (SPEC §14): it starts with "/",
// holds only characters a URL's path and query carry unescaped (no "%",
// which a server decodes), and has no "." or ".." segment (which clients
// and proxies remove).
func URLCarriesPath(path string) bool {
	if !strings.HasPrefix(path, "/") {
		return false
	}
	p, _, _ := strings.Cut(path, "?")
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	for i := 0; i < len(path); i++ {
		if c := path[i]; !isRegNameByte(c) && strings.IndexByte(":@/?", c) < 0 {
			return false
		}
	}
	return true
}

// TargetPath is the path and query a request asks for, byte for byte as
// its request line spells them (SPEC §4: an encoding is bytes like any
// other, so "/a%2fb" is not "/a/b"): an origin-form target as it is, the
// part of an absolute-form one from the "/" after its authority.
func TargetPath(requestURI string) string {
	t := requestURI
	if _, rest, absolute := strings.Cut(t, "://"); absolute && !strings.HasPrefix(t, "/") {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[i:]
		}
		return "/"
	}
	return t
}
