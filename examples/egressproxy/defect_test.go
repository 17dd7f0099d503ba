package egressproxy

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// defectCase is a request that one defect gets wrong: the correct proxy
// dials exactly wantDials, after at most one lookup per name; the defect
// dials something else, or looks up again.
type defectCase struct {
	defect    string
	reason    string
	grant     []string
	dns       map[string][]string
	url       string
	wantDials []string // nil: refused, nothing dialled
}

var defectCases = []defectCase{
	{
		defect: defectName, reason: "a name whose answer is internal is refused, not dialled by name",
		grant: []string{"db.test"}, dns: map[string][]string{"db.test": {"10.0.0.5"}},
		url: "http://db.test/secret",
	},
	{
		defect: defectTwice, reason: "the address checked is the address dialled: a second lookup would answer the metadata address",
		grant: []string{"rebind.test"}, dns: map[string][]string{"rebind.test": {"203.0.113.9", "169.254.169.254"}},
		url: "http://rebind.test/x", wantDials: []string{"203.0.113.9:80"},
	},
	{
		defect: defectCGNAT, reason: "100.64.0.0/10 is internal",
		grant: []string{"cgnat.test"}, dns: map[string][]string{"cgnat.test": {"100.100.100.200"}},
		url: "http://cgnat.test/",
	},
	{
		defect: defectMapped, reason: "an IPv4-mapped answer is judged as the IPv4 address it carries",
		grant: []string{"mapped.test"}, dns: map[string][]string{"mapped.test": {"::ffff:10.0.0.1"}},
		url: "http://mapped.test/",
	},
	{
		defect: defectMapped, reason: "a NAT64 literal is judged as the IPv4 address it carries",
		grant: []string{"[64:ff9b::a00:1]"},
		url:   "http://[64:ff9b::a00:1]/",
	},
	{
		defect: defectSuffix, reason: "evil-a.test is not a.test",
		grant: []string{"a.test"}, dns: map[string][]string{"evil-a.test": {"203.0.113.66"}},
		url: "http://evil-a.test/",
	},
}

// check runs c's request through a proxy with defect and says what went
// wrong, or nil.
func (c defectCase) check(t *testing.T, defect string) error {
	n := &fakeNet{dns: c.dns}
	w := get(t, proxyOver(n, defect, c.grant...), c.url)
	n.drain()
	s := n.state()
	if diff := cmp.Diff(c.wantDials, s.Dials); diff != "" {
		return fmt.Errorf("GET %s answered %d; dials (-want +got):\n%s", c.url, w.Code, diff)
	}
	for name, k := range s.Lookups {
		if k > 1 {
			return fmt.Errorf("GET %s looked %s up %d times", c.url, name, k)
		}
	}
	return nil
}

// TestEachDefectIsCaught: each row passes on the correct proxy and fails
// with its defect on; every defect has a row.
func TestEachDefectIsCaught(t *testing.T) {
	var covered []string
	for _, c := range defectCases {
		if err := c.check(t, ""); err != nil {
			t.Errorf("the correct proxy (%s): %v", c.reason, err)
		}
		if err := c.check(t, c.defect); err == nil {
			t.Errorf("defect %s passed: %s", c.defect, c.reason)
		}
		covered = append(covered, c.defect)
	}
	for _, d := range defects {
		if !slices.Contains(covered, d) {
			t.Errorf("defect %s has no case", d)
		}
	}
}

// TestNewRejectsUnknownDefect: a misspelt defect is an error, not a
// correct proxy that looks like a defective one.
func TestNewRejectsUnknownDefect(t *testing.T) {
	t.Setenv(defectEnv, "cgnta")
	if _, err := New(Config{}); err == nil {
		t.Fatal("New with EGRESSPROXY_DEFECT=cgnta: no error")
	}
	t.Setenv(defectEnv, defectCGNAT)
	if p, err := New(Config{}); err != nil || p.defect != defectCGNAT {
		t.Fatalf("New with EGRESSPROXY_DEFECT=cgnat: %v, %v", p, err)
	}
}
