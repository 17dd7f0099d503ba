// Package spectable reads the SPEC's tables kept as test data under
// internal/spec/testdata, for the tests of the packages that answer them
// (spec and the oracle's model), so that each table is written once.
package spectable

import (
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// Resolve is one line of a static resolver table: a host, the address
// SPEC §6 resolves it to, and why.
type Resolve struct {
	Host   string
	Want   netip.Addr
	Reason string
}

// ReadResolve reads a static resolver table: a Go-quoted host, the address
// it resolves to, and why, a line; blank lines and lines starting with '#'
// are skipped. It returns an error naming file and line for a line it
// cannot read, and for a file without a single case.
func ReadResolve(file string) ([]Resolve, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var cases []Resolve
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := parseResolve(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, i+1, err)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", file)
	}
	return cases, nil
}

func parseResolve(line string) (Resolve, error) {
	quoted, err := strconv.QuotedPrefix(line)
	if err != nil {
		return Resolve{}, fmt.Errorf("want a Go-quoted host first: %q", line)
	}
	host, _ := strconv.Unquote(quoted) // QuotedPrefix found a valid quoted string
	fields := strings.Fields(line[len(quoted):])
	if len(fields) < 2 {
		return Resolve{}, fmt.Errorf("want an address and a reason after the host: %q", line)
	}
	want, err := netip.ParseAddr(fields[0])
	if err != nil {
		return Resolve{}, err
	}
	return Resolve{Host: host, Want: want, Reason: strings.Join(fields[1:], " ")}, nil
}
