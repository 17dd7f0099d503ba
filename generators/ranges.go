package generators

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/internal/iprange"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Range probes aim at every point of the internal-range table (SPEC §6,
// internal/iprange): each internal range × {just below, low edge, interior,
// high edge, just above} × each spelling of its family — IPv4 dotted,
// short, integer, hex, octal, IPv4-mapped, NAT64, IPv4-compatible, 6to4, a
// name; IPv6 compressed, expanded, bracketed, a name — and the same points
// of each prefix of SPEC §6's embedding forms, internal and public
// addresses inside it and the ones just outside, judged as themselves. The world gen draws a point uniformly and
// grants a host that resolves to its address (a literal, or a name with a
// dns line answering it first), and ip-spelling and rebinding ops fetch
// it, so that a sandbox's internal check meets every edge of every range
// in every spelling, and the public neighbours of each range are fetched
// too (they must not be over-blocked). The ranges are iprange.Ranges(), in
// its order.

// A rangePoint is one point of the table: the hosts that spell it (one
// per address the position allows — an interior has several — and per
// variant of the spelling), each with its address.
type rangePoint struct {
	hosts []string
	addrs []netip.Addr
	name  bool       // the hosts are names, answered by a dns line
	flags []hostFlag // each host's worldlessFlags (flagTableHosts)
}

// rangePoints holds every reachable point; literalPoints and namePoints
// index it by spelling kind. probeHosts maps every host of every point to
// true, so ops can find the probes a grant holds.
var (
	rangePoints               []rangePoint
	literalPoints, namePoints []int
	probeHosts                = map[string]bool{}
	probePublic               = netip.MustParseAddr("203.0.113.21")
)

func init() {
	for ri, r := range iprange.Ranges() {
		first, last := iprange.Edges(r)
		positions := [5][]netip.Addr{
			{first.Prev()},
			{first},
			{first.Next(), midAddr(r), last.Prev()},
			{last},
			{last.Next()},
		}
		if c, ok := publicCarriers[r]; ok {
			// Any other interior carries an internal address.
			positions[2] = c
		}
		if first == last {
			positions[3] = nil // a one-address range's high edge is its low edge
		}
		for pos, cands := range positions {
			var as []netip.Addr
			for _, a := range cands {
				inside := pos != 2 || a != first && a != last && r.Contains(a)
				if a.IsValid() && inside && !containsAddr(as, a) {
					as = append(as, a)
				}
			}
			if len(as) == 0 {
				continue
			}
			for _, sp := range iprange.SpellingsOf(r) {
				var pt rangePoint
				for k, a := range as {
					if sp == iprange.Name {
						pt.name = true
						pt.hosts = append(pt.hosts, "r"+strconv.Itoa(ri)+"-"+strconv.Itoa(pos)+"-"+strconv.Itoa(k)+".range.example")
						pt.addrs = append(pt.addrs, a)
						continue
					}
					for _, h := range spell(a, sp) {
						pt.hosts = append(pt.hosts, h)
						pt.addrs = append(pt.addrs, a)
					}
				}
				if len(pt.hosts) == 0 {
					continue // no spelling of this kind: fdff:…:ffff has no "::"
				}
				for _, h := range pt.hosts {
					probeHosts[h] = true
				}
				if pt.name {
					namePoints = append(namePoints, len(rangePoints))
				} else {
					literalPoints = append(literalPoints, len(rangePoints))
				}
				rangePoints = append(rangePoints, pt)
			}
		}
	}
	flagTableHosts()
}

func containsAddr(as []netip.Addr, a netip.Addr) bool {
	for _, b := range as {
		if a == b {
			return true
		}
	}
	return false
}

// publicCarriers are the interiors of the two prefixes SPEC §6 calls
// internal whatever they carry: addresses carrying public IPv4 addresses
// where a decoder looks for them. The interiors other prefixes get (an
// edge's neighbour, the midpoint) carry 0.0.0.0, 0.0.0.1 or their
// inversions here, all internal, so a guard that judges the carried
// address would refuse them too and could not be told from one that
// refuses the prefix.
var publicCarriers = map[netip.Prefix][]netip.Addr{
	// 203.0.113.21 in the last 32 bits, where the well-known /96 carries
	// it, and where RFC 6052 puts it under a /48 (bits 48–63 and 72–87,
	// around the u octet).
	netip.MustParsePrefix("64:ff9b:1::/48"): {netip.MustParseAddr("64:ff9b:1::cb00:7115"), netip.MustParseAddr("64:ff9b:1:cb00:71:1500::")},
	// RFC 4380's example: server 65.54.227.120 in bits 32-63, client
	// 192.0.2.45 inverted in the last 32 bits, both public.
	netip.MustParsePrefix("2001::/32"): {netip.MustParseAddr("2001:0:4136:e378:8000:63bf:3fff:fdd2")},
}

// midAddr is the first address of r's upper half (172.24.0.0 for
// 172.16.0.0/12): an interior that a check by the first bytes of the
// range's low edge misses.
func midAddr(r netip.Prefix) netip.Addr {
	first, _ := iprange.Edges(r)
	b := first.AsSlice()
	if i := r.Bits(); i < len(b)*8 {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// spell returns the hosts that spell a in sp, an iprange spelling: none when there is no such
// spelling, more than one when the spelling has variants.
func spell(a netip.Addr, sp int) []string {
	// zoned is hs, its last host (a copy of another) with the zone when a
	// is internal and dropped when not.
	zoned := func(hs ...string) []string {
		if !spec.IsInternal(a) {
			return hs[:len(hs)-1]
		}
		hs[len(hs)-1] += zone
		return hs
	}
	if a.Is4() {
		b := a.As4()
		v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
		d := func(x uint32) string { return strconv.FormatUint(uint64(x), 10) }
		tail := "." + d(uint32(b[1])) + "." + d(uint32(b[2])) + "." + d(uint32(b[3]))
		switch sp {
		case iprange.Dotted:
			return []string{a.String()}
		case iprange.Short:
			return []string{d(uint32(b[0])) + "." + d(uint32(b[1])) + "." + d(v&0xffff), d(uint32(b[0])) + "." + d(v&0xffffff)}
		case iprange.Integer:
			return []string{d(v)}
		case iprange.Hex:
			return []string{"0x" + strconv.FormatUint(uint64(v), 16), "0x" + strconv.FormatUint(uint64(b[0]), 16) + tail}
		case iprange.Octal:
			return []string{"0" + strconv.FormatUint(uint64(b[0]), 8) + tail, "0" + strconv.FormatUint(uint64(v), 8)}
		case iprange.Mapped:
			x := func(y uint32) string { return strconv.FormatUint(uint64(y), 16) }
			// The third in mixed case, which a guard matching "::ffff:" as
			// written misses (the ip package's isPublic does).
			return zoned("::ffff:"+a.String(), "::ffff:"+x(v>>16)+":"+x(v&0xffff), "::fFFf:"+a.String(), "::ffff:"+a.String())
		case iprange.NAT64:
			n := [16]byte{0, 0x64, 0xff, 0x9b, 12: b[0], 13: b[1], 14: b[2], 15: b[3]}
			return zoned(netip.AddrFrom16(n).String(), netip.AddrFrom16(n).String())
		case iprange.Compatible:
			if v <= 1 {
				return nil // :: and ::1 are not IPv4-compatible (SPEC §6)
			}
			c := netip.AddrFrom16([16]byte{12: b[0], 13: b[1], 14: b[2], 15: b[3]}).String()
			return zoned(c, "::"+a.String(), c)
		case iprange.SixToFour:
			n := [16]byte{0x20, 0x02, b[0], b[1], b[2], b[3]}
			// An interface in the 6to4 site, its last 32 bits a public
			// address: bits 48 on are not the carried one, and a decoder
			// that reads 6to4 where NAT64 and the compatible form put it
			// judges that public address instead, which an interface of one
			// (internal read either way) could not show.
			host := n
			copy(host[12:], sixToFourTail[:])
			return zoned(netip.AddrFrom16(n).String(), netip.AddrFrom16(host).String(), netip.AddrFrom16(host).String())
		}
		return nil
	}
	switch sp {
	case iprange.Compressed:
		if c := compressed(a); c != "" {
			return zoned(c, c)
		}
	case iprange.Expanded:
		return []string{expanded(a, false), expanded(a, true)}
	case iprange.Bracketed:
		if c := compressed(a); c != "" {
			return []string{"[" + c + "]", "[" + expanded(a, false) + "]"}
		}
		return []string{"[" + expanded(a, false) + "]"}
	}
	return nil
}

// sixToFourTail is the last 32 bits of the 6to4 interface spell draws:
// a public address outside the documentation ranges, so that a guard
// refusing those does not refuse it for the wrong reason.
var sixToFourTail = netip.MustParseAddr("93.184.215.14").As4()

// zone is the zone some IPv6 spellings of internal addresses carry: the
// address is the same (SPEC §6 judges it as without), but a guard that
// tests ranges with netip.Prefix.Contains, false for any zoned address,
// finds it in none. Public addresses are not drawn zoned: a real resolver
// refuses a zone on an address that is not link-local, so a correct
// sandbox could not fetch what the model allows.
const zone = "%eth0"

// groups are the eight 16-bit groups of an IPv6 address.
func groups(a netip.Addr) [8]uint16 {
	b := a.As16()
	var g [8]uint16
	for i := range g {
		g[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return g
}

// expanded spells a with all eight groups and no "::", zero-padded or not.
func expanded(a netip.Addr, pad bool) string {
	var sb strings.Builder
	for i, g := range groups(a) {
		if i > 0 {
			sb.WriteByte(':')
		}
		s := strconv.FormatUint(uint64(g), 16)
		if pad {
			sb.WriteString("0000"[len(s):])
		}
		sb.WriteString(s)
	}
	return sb.String()
}

// compressed spells a with "::" for its longest run of zero groups (even
// a run of one, which RFC 5952 leaves alone), or "" when it has none.
func compressed(a netip.Addr) string {
	if s := a.String(); strings.Contains(s, "::") {
		return s
	}
	g := groups(a)
	for i, x := range g {
		if x != 0 {
			continue
		}
		var parts []string
		for _, y := range g[:i] {
			parts = append(parts, strconv.FormatUint(uint64(y), 16))
		}
		s := strings.Join(parts, ":") + "::"
		parts = parts[:0]
		for _, y := range g[i+1:] {
			parts = append(parts, strconv.FormatUint(uint64(y), 16))
		}
		return s + strings.Join(parts, ":")
	}
	return ""
}

// rangeProbes grants hosts of points of the internal-range table: now and
// then none, usually one to four literals and one more per 10 op slots
// (ip-spelling ops fetch them in turn, so that a long scenario spreads its
// fetches over more points), and in one world in three a name, with a dns
// line answering the point's address first, then a public one (a
// rebinding name). Probes have no routes: the journal shows a fetch from
// an internal address, and a public neighbour's not_found is its verdict.
func (b *builder) rangeProbes(slots int) {
	src := b.src
	for n := literalProbeWeights.draw(src) + slots/10; n > 0; n-- {
		pt := &rangePoints[pick(src, literalPoints)]
		k := src.Intn(len(pt.hosts)) // pick's draw, and the index of the flags
		b.grant(pt.hosts[k], pt.flags[k])
	}
	if oneIn(src, 3) {
		pt := &rangePoints[pick(src, namePoints)]
		k := src.Intn(len(pt.hosts))
		h := pt.hosts[k]
		b.grant(h, pt.flags[k])
		b.dnsLine(h, []netip.Addr{pt.addrs[k], probePublic})
	}
}

// nextProbe is the granted literal probe the scenario's next ip-spelling
// op fetches: the probes in grant order, one after the other, so that a
// scenario's fetches spread over its probes; "" when the grant has none.
func nextProbe(src Source, sc *scenario.Scenario) string {
	var ks []int
	if f := factsOf(src, sc); f != nil {
		ks = f.literalProbes()
	} else {
		var buf [8]int
		ks = appendLiteralProbes(buf[:0], sc, nil)
	}
	if len(ks) == 0 {
		return ""
	}
	k := 0
	for _, st := range sc.Steps {
		if st.Class == attack.IPSpelling {
			k++
		}
	}
	return sc.Grant.NetHosts[ks[k%len(ks)]]
}

// appendLiteralProbes appends the indices of the granted probes that have
// no DNS line (literals, the names have one), in grant order, looking the
// flags up in f, sc's facts, unless f is nil.
func appendLiteralProbes(out []int, sc *scenario.Scenario, f *facts) []int {
	for k, h := range sc.Grant.NetHosts {
		if f != nil && f.has(k, probe) && !f.has(k, dnsLined) || f == nil && hostHas(sc, h, probe) && !hasDNS(sc, h) {
			out = append(out, k)
		}
	}
	return out
}
