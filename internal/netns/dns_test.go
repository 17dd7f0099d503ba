package netns

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// query builds a DNS query for name of type t, with id 0x1234 and RD.
func query(name string, t uint16) []byte {
	b := []byte{0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}
	for _, label := range splitLabels(name) {
		b = append(b, byte(len(label)))
		b = append(b, label...)
	}
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, t)
	return binary.BigEndian.AppendUint16(b, classIN)
}

func splitLabels(name string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(name); i++ {
		if i == len(name) || name[i] == '.' {
			out = append(out, name[start:i])
			start = i + 1
		}
	}
	return out
}

// answers reads the addresses of a reply's answers.
func answers(t *testing.T, reply []byte, q []byte) []netip.Addr {
	t.Helper()
	if reply[0] != 0x12 || reply[1] != 0x34 || reply[2]&0x80 == 0 || reply[3]&0x0f != 0 {
		t.Fatalf("header % x: want id 1234, a response, NOERROR", reply[:4])
	}
	n := int(binary.BigEndian.Uint16(reply[6:]))
	i := len(q)
	var out []netip.Addr
	for range n {
		rdlen := int(binary.BigEndian.Uint16(reply[i+10:]))
		a, _ := netip.AddrFromSlice(reply[i+12 : i+12+rdlen])
		out = append(out, a)
		i += 12 + rdlen
	}
	if i != len(reply) {
		t.Fatalf("reply has %d bytes after its answers", len(reply)-i)
	}
	return out
}

func TestAnswer(t *testing.T) {
	table := func(name string, fam Family) []netip.Addr {
		if name != "a.test" {
			return nil
		}
		return []netip.Addr{
			netip.MustParseAddr("10.0.0.1"),
			netip.MustParseAddr("::ffff:10.0.0.2"),
			netip.MustParseAddr("2001:db8::1"),
		}
	}
	for _, tc := range []struct {
		reason string
		name   string
		qtype  uint16
		want   []netip.Addr
	}{
		{"A answers the IPv4 addresses only", "A.Test", typeA, []netip.Addr{netip.MustParseAddr("10.0.0.1")}},
		{"AAAA answers IPv6, the IPv4-mapped form included", "a.test", typeAAAA,
			[]netip.Addr{netip.MustParseAddr("::ffff:10.0.0.2"), netip.MustParseAddr("2001:db8::1")}},
		{"another type is answered with no address", "a.test", 16, nil},
		{"an unknown name is answered with no address", "b.test", typeA, nil},
	} {
		q := query(tc.name, tc.qtype)
		reply, err := answer(q, table)
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		if diff := cmp.Diff(tc.want, answers(t, reply, q), cmp.Comparer(func(a, b netip.Addr) bool { return a == b })); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.reason, diff)
		}
	}
}

func TestAnswerAsksOncePerQuery(t *testing.T) {
	var asked []string
	table := func(name string, fam Family) []netip.Addr {
		asked = append(asked, name)
		return nil
	}
	answer(query("x.test", typeA), table)
	answer(query("x.test", typeAAAA), table)
	answer(query("x.test", 16), table) // not an address: not asked
	if diff := cmp.Diff([]string{"x.test", "x.test"}, asked); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestAnswerRefusesMalformed(t *testing.T) {
	good := query("a.test", typeA)
	reply := append([]byte(nil), good...)
	reply[2] |= 0x80
	for _, tc := range []struct {
		reason string
		msg    []byte
	}{
		{"shorter than a header", good[:11]},
		{"a question cut short", good[:len(good)-2]},
		{"a response, not a query", reply},
		{"a label longer than the message", append(append([]byte(nil), good[:12]...), 40, 'a')},
	} {
		if _, err := answer(tc.msg, nil); err == nil {
			t.Errorf("%s: answered", tc.reason)
		}
	}
}

// TestAnswerTooLongAName: a name past DNS's 255 octets is answered
// FORMERR, with no question and no record, and the world is not asked for
// it; a name of 255 octets exactly is answered.
func TestAnswerTooLongAName(t *testing.T) {
	label := strings.Repeat("a", 63)
	longest := strings.Join([]string{label, label, label, strings.Repeat("b", 61)}, ".") // 253 characters: 255 octets
	for _, tc := range []struct {
		name  string
		asked bool
	}{{longest, true}, {longest + "c", false}, {longest + ".c", false}} {
		asked := false
		resolve := func(string, Family) []netip.Addr {
			asked = true
			return []netip.Addr{netip.MustParseAddr("203.0.113.1")}
		}
		reply, err := answer(query(tc.name, typeA), resolve)
		if err != nil {
			t.Fatalf("%d characters: %v", len(tc.name), err)
		}
		formerr := reply[3]&0x0f == 1 && len(reply) == 12 && binary.BigEndian.Uint16(reply[4:]) == 0
		if asked != tc.asked || formerr == tc.asked {
			t.Errorf("%d characters: the world asked %v, FORMERR %v; want asked %v", len(tc.name), asked, formerr, tc.asked)
		}
	}
}

func TestHeadKeepsTheFirstBytes(t *testing.T) {
	h := &head{n: 5}
	h.Write([]byte("abc"))
	h.Write([]byte("defg"))
	if h.String() != "abcde" || !h.cut() {
		t.Errorf("head = %q, cut %v; want \"abcde\", true", h.String(), h.cut())
	}
}

// TestQueryNameFoldsOnlyASCII: the world is asked for the name queried
// with its ASCII letters in lower case and every other byte as it came
// (SPEC §6): the Kelvin sign is no "k", a dotted capital I no "i", and a
// byte that is no UTF-8 no U+FFFD.
func TestQueryNameFoldsOnlyASCII(t *testing.T) {
	for _, tc := range []struct{ label, want string }{
		{"\u212aevil", "\u212aevil"},
		{"a\xc0B", "a\xc0b"},
		{"\u0130X", "\u0130x"},
		{"MiXeD", "mixed"},
	} {
		label, want := tc.label, tc.want
		q := []byte{0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0}
		q = append(q, byte(len(label)))
		q = append(q, label...)
		q = append(q, 4, 'T', 'e', 's', 't', 0, 0, 1, 0, 1)
		got, err := parseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		if got.name != want+".test" {
			t.Errorf("query for %q: the world is asked for %q, want %q", label+".Test", got.name, want+".test")
		}
	}
}
