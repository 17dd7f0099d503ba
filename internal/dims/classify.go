package dims

import (
	"encoding/binary"
	"net/netip"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// Spelling returns how host spells its address: an IPv4 form inet_aton
// reads, an IPv6 form, or Name for anything else (a name the resolver
// answers from its table or a dns line).
func Spelling(host string) int {
	if a, ok := core.ParseIPv6Literal(host); ok {
		u := a.WithZone("")
		switch {
		case u.Is4In6():
			return Mapped
		case u != core.Unmap(u):
			return NAT64
		case host[0] == '[':
			return Bracketed
		case strings.Contains(stripZone(host), "::"): // a zone ("%a::b") is no compression
			return Compressed
		}
		return Expanded
	}
	if _, ok := core.ParseInetAton(host); !ok {
		return Name
	}
	if i := strings.IndexAny(host, " \t\n\v\f\r"); i >= 0 {
		host = host[:i] // inet_aton ignores what follows white space
	}
	parts := strings.Split(host, ".")
	octal := false
	for _, p := range parts {
		if len(p) > 1 && p[0] == '0' {
			if p[1] == 'x' || p[1] == 'X' {
				return Hex
			}
			octal = true
		}
	}
	switch {
	case octal:
		return Octal
	case len(parts) == 1:
		return Integer
	case len(parts) < 4:
		return Short
	}
	return Dotted
}

// stripZone drops an IPv6 literal's zone, from its '%' on.
func stripZone(host string) string {
	if i := strings.IndexByte(host, '%'); i >= 0 {
		return host[:i]
	}
	return host
}

// Position returns where a lies against r: Below, Low, Interior, High or
// Above, and false when it is none of them. A one-address range's only
// address is both its Low and its High: Position says Low.
func Position(a netip.Addr, r netip.Prefix) (int, bool) {
	first, last := edges(r)
	return position(a, r, [4]netip.Addr{first.Prev(), first, last, last.Next()})
}

// position is Position with r's edges e as rangeEdges holds them.
func position(a netip.Addr, r netip.Prefix, e [4]netip.Addr) (int, bool) {
	switch {
	case a == e[1]:
		return Low, true
	case a == e[2]:
		return High, true
	case r.Contains(a):
		return Interior, true
	case e[0].IsValid() && a == e[0]:
		return Below, true
	case e[3].IsValid() && a == e[3]:
		return Above, true
	}
	return 0, false
}

// ByteClass returns the class of s's bytes: NUL when it holds a zero byte,
// else InvalidUTF8, else MultiByte when it holds a byte past ASCII, else
// ASCII. Returned data can be megabytes: the scans go a word at a time.
func ByteClass(s string) int {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return NUL
	case ascii(s):
		return ASCII
	case utf8.ValidString(s):
		return MultiByte
	}
	return InvalidUTF8
}

// ascii reports whether every byte of s is below 0x80.
func ascii(s string) bool {
	const highs = 0x8080808080808080
	i := 0
	for ; i+32 <= len(s); i += 32 { // four words a round: megabytes of filler are common
		b := []byte(s[i : i+32])
		w := binary.LittleEndian.Uint64(b) | binary.LittleEndian.Uint64(b[8:]) |
			binary.LittleEndian.Uint64(b[16:]) | binary.LittleEndian.Uint64(b[24:])
		if w&highs != 0 {
			return false
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64([]byte(s[i:i+8]))&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// ClassifyPath returns the shape of fs path p against roots (SPEC §4): the
// root it names (the longest root, other than "/", that p starts with
// byte for byte, or whose ancestor it is) and the shape, with
// named=false and a loose shape (PathRelative, PathEmpty, PathOutside)
// when it names none. slash says whether that root was written with a
// trailing slash.
func ClassifyPath(p string, roots []string) (shape int, slash, named bool) {
	best := -1
	for i, r := range roots {
		t := strings.TrimRight(r, "/")
		if t != "" && strings.HasPrefix(p, t) && (best < 0 || len(t) > len(strings.TrimRight(roots[best], "/"))) {
			best = i
		}
	}
	if best < 0 {
		return ancestorOrLoose(p, roots)
	}
	r := roots[best]
	slash = strings.HasSuffix(r, "/")
	rest := p[len(strings.TrimRight(r, "/")):]
	switch {
	case core.HasTraversal(p):
		if strings.Contains(p, `\..`) || strings.Contains(p, `..\`) {
			return PathBackslash, slash, true
		}
		return PathTraversal, slash, true
	case rest == "":
		return PathRootItself, slash, true
	case rest == "/":
		return PathRootSlash, slash, true
	case rest[0] != '/':
		return PathSibling, slash, true
	case strings.Contains(rest, "/.."):
		return PathDotDotName, slash, true
	case strings.Contains(rest, "/./") || strings.Contains(rest, "//") || strings.HasSuffix(rest, "/."):
		return PathDotSegments, slash, true
	case strings.IndexByte(rest, '%') >= 0:
		return PathPercent, slash, true
	case ByteClass(rest) != ASCII:
		return PathLookalike, slash, true
	case strings.HasSuffix(rest, "/"):
		return PathTrailing, slash, true
	case strings.Count(rest, "/") >= 3:
		return PathDeep, slash, true
	}
	return PathChild, slash, true
}

// ancestorOrLoose classes a path that starts with no root: an ancestor of
// one, or a loose shape.
func ancestorOrLoose(p string, roots []string) (int, bool, bool) {
	switch {
	case p == "":
		return PathEmpty, false, false
	case p[0] != '/':
		return PathRelative, false, false
	}
	c := path.Clean(p)
	for _, r := range roots {
		rc := path.Clean(r)
		if rc != "/" && !core.HasTraversal(p) && (c == "/" || strings.HasPrefix(rc, c+"/")) {
			return PathAncestor, strings.HasSuffix(r, "/"), true
		}
	}
	return PathOutside, false, false
}

// ClassifyHost returns the shape of a net_fetch host against the granted
// hosts (SPEC §9), first match in the order of the table.
func ClassifyHost(h string, granted []string) int {
	for _, g := range granted {
		if h == g {
			return HostGranted
		}
	}
	switch {
	case h == "":
		return HostEmpty
	case strings.IndexFunc(h, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0:
		return HostSpace
	case strings.IndexByte(h, '@') >= 0:
		for _, g := range granted {
			if strings.HasPrefix(h, g+"@") {
				return HostGrantedAt
			}
		}
		return HostUserinfo
	}
	if _, ok := core.ParseIPv6Literal(h); ok {
		return HostIPv6
	}
	if _, ok := core.ParseInetAton(h); ok {
		return HostIPv4
	}
	if strings.IndexByte(h, ':') >= 0 {
		return HostPort
	}
	for _, g := range granted {
		switch {
		case strings.EqualFold(h, g):
			return HostCase
		case h == g+".":
			return HostTrailingDot
		case h == g+"..":
			return HostTwoDots
		case strings.HasSuffix(h, "."+g):
			return HostSubdomain
		case strings.HasPrefix(h, g):
			return HostPrefix
		}
	}
	switch n := core.NormalizeHost(h); {
	case n == "localhost" || strings.HasSuffix(n, ".localhost"):
		return HostLocalhost
	case n == "metadata.google.internal" || n == "metadata" || n == "instance-data":
		return HostMetadata
	}
	return HostOther
}
