package netns

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"strings"
)

// DNS record types and the class this server answers.
const (
	typeA    = 1
	typeAAAA = 28
	classIN  = 1
)

// question is the one question of a DNS query.
type question struct {
	name   string // ASCII letters in lower case, no trailing dot
	octets int    // the name's length on the wire, its labels' lengths and the root's
	qtype  uint16
	end    int // offset just past the question in the query
}

var errMalformed = errors.New("malformed DNS query")

// parseQuery reads the header and the first question of a query.
func parseQuery(msg []byte) (question, error) {
	if len(msg) < 12 || msg[2]&0x80 != 0 || binary.BigEndian.Uint16(msg[4:]) == 0 {
		return question{}, errMalformed
	}
	var labels []string
	i := 12
	for {
		if i >= len(msg) {
			return question{}, errMalformed
		}
		n := int(msg[i])
		i++
		if n == 0 {
			break
		}
		if n > 63 || i+n > len(msg) {
			return question{}, errMalformed // compression has no place in a question
		}
		labels = append(labels, lowerASCII(msg[i:i+n]))
		i += n
	}
	if i+4 > len(msg) {
		return question{}, errMalformed
	}
	return question{name: strings.Join(labels, "."), octets: i - 12, qtype: binary.BigEndian.Uint16(msg[i:]), end: i + 4}, nil
}

// lowerASCII is label with its ASCII letters in lower case and every other
// byte as it is: SPEC §6 folds ASCII case only, and a Unicode folding
// would ask the world for another name than was queried (the Kelvin sign
// as "k", a byte that is no UTF-8 as U+FFFD).
func lowerASCII(label []byte) string {
	b := append([]byte(nil), label...)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// maxNameOctets is the longest name DNS carries, in octets on the wire
// (RFC 1035, section 2.3.4): its labels, a length byte each, and the
// root's.
const maxNameOctets = 255

// answer is the reply to query: for A and AAAA, the addresses resolve
// gives of the query's family, with a TTL of zero so that no resolver
// caches them (each query must reach resolve: that is rebinding); for any
// other type, no address. Both are NOERROR, as a server that knows the
// name but not the type answers. A name longer than DNS carries is
// FORMERR, with no question echoed and resolve not asked: echoed, it makes
// a reply a resolver rejects as malformed and retries for seconds.
func answer(query []byte, resolve func(string, Family) []netip.Addr) ([]byte, error) {
	q, err := parseQuery(query)
	if err != nil {
		return nil, err
	}
	if q.octets > maxNameOctets {
		reply := append([]byte(nil), query[:12]...)
		reply[2] = 0x80 | query[2]&0x79 // QR, the query's opcode and RD
		reply[3] = 0x80 | 1             // RA, FORMERR
		clear(reply[4:12])              // no question, no record
		return reply, nil
	}
	var addrs []netip.Addr
	if fam, ok := familyOf(q.qtype); ok && resolve != nil {
		addrs = ofFamily(resolve(q.name, fam), fam)
	}
	reply := append([]byte(nil), query[:q.end]...)
	reply[2] = 0x80 | query[2]&0x79 // QR, the query's opcode and RD
	reply[3] = 0x80                 // RA, NOERROR
	binary.BigEndian.PutUint16(reply[4:], 1)
	binary.BigEndian.PutUint16(reply[6:], uint16(len(addrs)))
	binary.BigEndian.PutUint16(reply[8:], 0)
	binary.BigEndian.PutUint16(reply[10:], 0)
	for _, a := range addrs {
		reply = appendRecord(reply, q.qtype, a.AsSlice())
	}
	return reply, nil
}

// appendRecord appends an answer for the question's name (a pointer to
// offset 12) of type t.
func appendRecord(b []byte, t uint16, rdata []byte) []byte {
	b = append(b, 0xc0, 12)
	b = binary.BigEndian.AppendUint16(b, t)
	b = binary.BigEndian.AppendUint16(b, classIN)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(len(rdata)))
	return append(b, rdata...)
}

func familyOf(qtype uint16) (Family, bool) {
	switch qtype {
	case typeA:
		return IPv4, true
	case typeAAAA:
		return IPv6, true
	}
	return 0, false
}

// ofFamily keeps the addresses of fam: an IPv4-mapped IPv6 address is an
// AAAA answer, as it is written; an IPv4 address is never an AAAA.
func ofFamily(addrs []netip.Addr, fam Family) []netip.Addr {
	var out []netip.Addr
	for _, a := range addrs {
		if a.Is4() == (fam == IPv4) && a.IsValid() {
			out = append(out, a.WithZone(""))
		}
	}
	return out
}
