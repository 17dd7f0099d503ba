package fuzzcheck

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// CheckResolve is FuzzResolve's body: it checks spec.ParseInetAton, the
// module's one inet_aton parser (core's tests compare it with a strtoul-
// style scanner on every short string), against what any reading of
// glibc's rules must keep: a dotted quad netip reads is that address; an
// address read is read back from its dotted quad; and white space ends an
// address, so what follows it changes nothing. It returns an error naming
// the first rule s breaks.
func CheckResolve(s string) error { return checkResolve(s, spec.ParseInetAton) }

// checkResolve is CheckResolve of parse, which a test gives wrong on
// purpose.
func checkResolve(s string, parse func(string) (netip.Addr, bool)) error {
	got, ok := parse(s)
	if a, err := netip.ParseAddr(s); err == nil && a.Is4() && (!ok || got != a) {
		return fmt.Errorf("ParseInetAton(%q) = %s, but it is the dotted quad %s", s, addrOrNone(got, ok), a)
	}
	if !ok {
		return nil
	}
	if back, backOK := parse(got.String()); !backOK || back != got {
		return fmt.Errorf("ParseInetAton(%q) = %s, whose dotted quad reads as %s", s, got, addrOrNone(back, backOK))
	}
	if !strings.ContainsAny(s, " \t\n\v\f\r") {
		if after, afterOK := parse(s + " 9.9"); !afterOK || after != got {
			return fmt.Errorf("ParseInetAton(%q) = %s, but followed by white space and more it reads %s", s, got, addrOrNone(after, afterOK))
		}
	}
	return nil
}

func addrOrNone(a netip.Addr, ok bool) string {
	if !ok {
		return "not an address"
	}
	return a.String()
}
