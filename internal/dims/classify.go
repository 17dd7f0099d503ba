package dims

import (
	"encoding/binary"
	"net/netip"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/internal/iprange"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// Spelling returns how host, a literal the resolver reads as itself (the
// caller strips a trailing dot and rules out names a dns line answers),
// spells its address: an IPv4 form inet_aton reads, an IPv6 form (as
// text: compressed, expanded or bracketed), or Name for anything else (a
// name SPEC §6's table answers). Granted hosts hold no white space, so the
// text inet_aton would ignore after it is never there. An IPv6 literal
// that embeds an IPv4 address spells that address in its embedding form
// as well (iprange.Form): the IPv4 ranges count it by that form, the IPv6
// ones by its text.
func Spelling(host string) int {
	if _, ok := spec.ParseIPv6Literal(host); ok {
		switch {
		case host[0] == '[':
			return iprange.Bracketed
		case strings.Contains(stripZone(host), "::"): // a zone ("%a::b") is no compression
			return iprange.Compressed
		}
		return iprange.Expanded
	}
	if _, ok := spec.ParseInetAton(host); !ok {
		return iprange.Name
	}
	parts := strings.Split(host, ".")
	octal := false
	for _, p := range parts {
		if len(p) > 1 && p[0] == '0' {
			if p[1] == 'x' || p[1] == 'X' {
				return iprange.Hex
			}
			octal = true
		}
	}
	switch {
	case octal:
		return iprange.Octal
	case len(parts) == 1:
		return iprange.Integer
	case len(parts) < 4:
		return iprange.Short
	}
	return iprange.Dotted
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
	first, last := iprange.Edges(r)
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

// ClassifyPath returns the shape of fs path p against roots (SPEC §4), and
// whether the root it names was written with a trailing slash. The root
// a path names is the longest root whose Clean holds Clean(p) (for a path
// with a ".." segment, Clean of what comes before it), else the longest
// one Clean(p) is a prefix sibling of, else one it is an ancestor of; a
// path that names none gets named=false and a loose shape (PathRelative,
// PathEmpty, PathOutside).
func ClassifyPath(p string, roots []string) (shape int, slash, named bool) {
	return newRootSet(nil, roots).classify(p, ByteClass(p))
}

// rootSet is a grant's roots of one kind, each cleaned once and with
// whether it was written with a trailing slash: Count classes every fs op
// of a scenario against the same few.
type rootSet []root

type root struct {
	clean string
	slash bool
}

// newRootSet appends roots to rs[:0], so that Count reuses one set's
// memory scenario after scenario.
func newRootSet(rs rootSet, roots []string) rootSet {
	rs = rs[:0]
	for _, r := range roots {
		c := r
		if len(c) > 1 && c[len(c)-1] == '/' {
			c = c[:len(c)-1] // Clean drops it anyway; without it, "/work/" is canonical and Canonical copies nothing
		}
		rs = append(rs, root{spec.Canonical(c), strings.HasSuffix(r, "/")})
	}
	return rs
}

// classify is ClassifyPath; class is ByteClass(p), which Count has
// already.
func (rs rootSet) classify(p string, class int) (shape int, slash, named bool) {
	switch {
	case p == "":
		return PathEmpty, false, false
	case p[0] != '/':
		return PathRelative, false, false
	}
	if at, sep := traversalAt(p); at >= 0 {
		pre := strings.TrimRight(p[:at], `/\`) // what the ".." climbs out of
		if pre == "" {
			pre = "/"
		}
		if r, ok := rs.holding(spec.Canonical(pre)); ok {
			if sep == '\\' {
				return PathBackslash, r.slash, true
			}
			return PathTraversal, r.slash, true
		}
		return PathOutside, false, false
	}
	c := spec.Canonical(p)
	if r, ok := rs.holding(c); ok {
		return underShape(p, c, r.clean, class), r.slash, true
	}
	best := -1
	for i, r := range rs {
		if r.clean != "/" && len(c) > len(r.clean) && strings.HasPrefix(c, r.clean) && (best < 0 || len(r.clean) > len(rs[best].clean)) {
			best = i
		}
	}
	if best >= 0 {
		return PathSibling, rs[best].slash, true
	}
	for _, r := range rs {
		if r.clean != "/" && (c == "/" || len(r.clean) > len(c) && r.clean[len(c)] == '/' && strings.HasPrefix(r.clean, c)) {
			return PathAncestor, r.slash, true
		}
	}
	return PathOutside, false, false
}

// holding returns the longest root that is c or an ancestor of c.
func (rs rootSet) holding(c string) (root, bool) {
	best, found := root{}, false
	for _, r := range rs {
		under := c == r.clean || r.clean == "/" || len(c) > len(r.clean) && c[len(r.clean)] == '/' && strings.HasPrefix(c, r.clean)
		if under && (!found || len(r.clean) > len(best.clean)) {
			best, found = r, true
		}
	}
	return best, found
}

// underShape is the shape of p, whose Clean c is root rc or lies under it
// and whose ByteClass is class: the first of its spelling's features in
// the table's order.
func underShape(p, c, rc string, class int) int {
	switch {
	case c == rc && p == rc:
		return PathRootItself
	case c == rc && joined(p, rc, "/"):
		return PathRootSlash
	case dotDotName(p):
		return PathDotDotName
	case p != c && !joined(p, c, "/"): // not canonical, but a trailing slash: "/./", "//", "/."
		return PathDotSegments
	case strings.IndexByte(p, '%') >= 0:
		return PathPercent
	case class != ASCII:
		return PathLookalike
	case strings.HasSuffix(p, "/"):
		return PathTrailing
	case strings.Count(strings.TrimPrefix(c, rc), "/") >= 3:
		return PathDeep
	}
	return PathChild
}

// traversalAt returns where p's first ".." segment begins (split on "/"
// and "\\", SPEC §4) and the separator beside it ('\\' when either side is
// a backslash), or -1.
func traversalAt(p string) (int, byte) {
	if !strings.Contains(p, "..") {
		return -1, 0 // the common case, found by a vectorized search
	}
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' && p[i] != '\\' {
			continue
		}
		if p[start:i] == ".." {
			sep := byte('/')
			if start > 0 && p[start-1] == '\\' || i < len(p) && p[i] == '\\' {
				sep = '\\'
			}
			return start, sep
		}
		start = i + 1
	}
	return -1, 0
}

// dotDotName reports a segment that begins with ".." and is not "..".
func dotDotName(p string) bool {
	if !strings.Contains(p, "..") {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		if len(seg) > 2 && strings.HasPrefix(seg, "..") {
			return true
		}
	}
	return false
}

// hasDotSuffix reports whether h ends with "."+g, without building it.
func hasDotSuffix(h, g string) bool {
	rest, ok := strings.CutSuffix(h, g)
	return ok && strings.HasSuffix(rest, ".")
}

// joined reports whether s is a followed by b, without building a+b.
func joined(s, a, b string) bool {
	return len(s) == len(a)+len(b) && strings.HasPrefix(s, a) && strings.HasSuffix(s, b)
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
			if rest, ok := strings.CutPrefix(h, g); ok && strings.HasPrefix(rest, "@") {
				return HostGrantedAt
			}
		}
		return HostUserinfo
	}
	for _, g := range granted { // a granted host's own variants first, literals included
		switch {
		case strings.EqualFold(h, g):
			return HostCase
		case joined(h, g, "."), joined(g, h, "."): // a dot added, or the granted one dropped
			return HostTrailingDot
		case joined(h, g, ".."):
			return HostTwoDots
		}
	}
	if _, ok := spec.ParseIPv6Literal(h); ok {
		return HostIPv6
	}
	if _, ok := spec.ParseInetAton(h); ok {
		return HostIPv4
	}
	if strings.IndexByte(h, ':') >= 0 {
		return HostPort
	}
	for _, g := range granted {
		switch {
		case hasDotSuffix(h, g):
			return HostSubdomain
		case strings.HasPrefix(h, g):
			return HostPrefix
		}
	}
	for _, g := range granted {
		if encodes(h, g) {
			return HostEncoded
		}
	}
	switch n := spec.NormalizeHost(h); {
	case n == "localhost" || strings.HasSuffix(n, ".localhost"):
		return HostLocalhost
	case n == "metadata.google.internal" || n == "metadata" || n == "instance-data":
		return HostMetadata
	}
	return HostOther
}

// encodes reports whether h spells the granted g in an encoding a URL
// parser undoes: percent-encoded bytes, or Unicode labels where g has
// IDNA A-labels ("xn--"), its other labels the same.
func encodes(h, g string) bool {
	if strings.IndexByte(h, '%') >= 0 {
		if d, err := url.PathUnescape(h); err == nil && d == g {
			return true
		}
	}
	if utf8.ValidString(h) && !isASCII(h) && strings.Count(h, ".") == strings.Count(g, ".") {
		hs, gs := strings.Split(h, "."), strings.Split(g, ".")
		for i := range hs {
			if hs[i] != gs[i] && (isASCII(hs[i]) || !strings.HasPrefix(gs[i], "xn--")) {
				return false
			}
		}
		return true
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
