package generators

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestRegexAllowListMissFetched: an allow-list whose entries are matched
// as regular expressions with their dots unescaped (re.fullmatch(host,
// url_host) in Python) lets through any name that differs from a granted
// one by a character where the grant has a dot. Seeded scenarios must
// fetch such names, ungranted, as a real URL and DNS carry them (no empty
// label, no character a URL escapes), or that guard is never caught.
func TestRegexAllowListMissFetched(t *testing.T) {
	carried := regexp.MustCompile(`^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.?$`)
	n := 0
	eachSeededFetch(2000, func(sc *scenario.Scenario, op core.Op) {
		h := op.Args[0]
		if !carried.MatchString(h) || slices.Contains(sc.Grant.NetHosts, h) {
			return
		}
		if slices.ContainsFunc(sc.Grant.NetHosts, func(g string) bool {
			re, err := regexp.Compile(`^(?:` + g + `)$`)
			return err == nil && strings.Contains(g, ".") && re.MatchString(h)
		}) {
			n++
		}
	})
	if n < 20 {
		t.Errorf("%d fetches in 2000 scenarios of an ungranted name a granted one matches as an unescaped regular expression, want 20 or more", n)
	}
}

// TestRedirectToGrantedInsideFetched: a guard that checks the first URL's
// address but a redirect's Location only against the allow-list, by name,
// lets its HTTP client follow to wherever a granted name resolves. Seeded
// scenarios must fetch redirect routes whose Location names a granted name
// (not an address literal, which a name check reads as it is) whose first
// answer is internal, or that guard is caught only by granted literals.
func TestRedirectToGrantedInsideFetched(t *testing.T) {
	n := 0
	eachSeededFetch(2000, func(sc *scenario.Scenario, op core.Op) {
		for _, r := range sc.World.Routes {
			if !r.Redirect || r.Host != op.Args[0] || r.Path != op.Args[1] || !slices.Contains(sc.Grant.NetHosts, r.Host) {
				continue
			}
			u, err := url.Parse(r.Body)
			if err != nil || u.Host == "" || isIPSpelling(u.Hostname()) || !slices.Contains(sc.Grant.NetHosts, u.Hostname()) {
				continue
			}
			if firstAnswerInternal(sc, u.Hostname()) {
				n++
			}
		}
	})
	if n < 10 {
		t.Errorf("%d fetches in 2000 scenarios of a redirect to a granted name whose first answer is internal, want 10 or more", n)
	}
}

// firstAnswerInternal reports whether h's first answer in sc's world,
// its dns line's or the static one, is internal.
func firstAnswerInternal(sc *scenario.Scenario, h string) bool {
	for _, d := range sc.World.DNS {
		if sameName(d.Host, h) && len(d.Addrs) > 0 {
			return spec.IsInternal(d.Addrs[0])
		}
	}
	return spec.IsInternal(spec.StaticResolve(h))
}

// eachSeededFetch calls f with each well-formed net_fetch of the first n
// seeded scenarios, and its scenario.
func eachSeededFetch(n int, f func(*scenario.Scenario, core.Op)) {
	for i := range n {
		sc := seeded(i)
		for _, st := range sc.Steps {
			if st.Op.Kind == core.OpFetch && len(st.Op.Args) == 2 {
				f(sc, st.Op)
			}
		}
	}
}

// TestSameHostRedirectOnRebinderFetched: a guard that checks the first
// URL's address and a redirect's Location by name alone lets its HTTP
// client look a rebinding name up again for a Location on the same host,
// and connect inside. Seeded scenarios must fetch such redirects: a
// granted name's redirect to a path of its own, the name's first answer
// public and a later one internal.
func TestSameHostRedirectOnRebinderFetched(t *testing.T) {
	n := 0
	eachSeededFetch(2000, func(sc *scenario.Scenario, op core.Op) {
		for _, r := range sc.World.Routes {
			if !r.Redirect || r.Host != op.Args[0] || r.Path != op.Args[1] || !strings.HasPrefix(r.Body, "/") || !slices.Contains(sc.Grant.NetHosts, r.Host) {
				continue
			}
			for _, d := range sc.World.DNS {
				if sameName(d.Host, r.Host) && len(d.Addrs) > 1 && !spec.IsInternal(d.Addrs[0]) && slices.ContainsFunc(d.Addrs[1:], spec.IsInternal) {
					n++
				}
			}
		}
	})
	if n < 50 {
		t.Errorf("%d fetches in 2000 scenarios of a same-host redirect on a rebinding name, want 50 or more", n)
	}
}
