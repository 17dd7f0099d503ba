package outside

import (
	"net/netip"
	"path"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// A Variant is the sandbox with one defect that real sandboxes have
// shipped: the test suite must catch every one (variants_test.go).
type Variant struct {
	Name    string       // a short name, for -run patterns and --sut outside-NAME
	Defect  string       // what it gets wrong
	Factory core.Factory // builds it
}

// Variants returns the one-defect variants of the sandbox.
func Variants() []Variant {
	return []Variant{
		variant("prefix-sibling", "roots as raw string prefixes: /work holds /workshop", func(r *rules) {
			r.under = func(p string, roots []string) bool {
				for _, root := range roots {
					if strings.HasPrefix(path.Clean(p), path.Clean(root)) {
						return true
					}
				}
				return false
			}
		}),
		variant("traversal-slash-only", `".." looked for between '/' only: /work\..\x passes`, func(r *rules) {
			r.traversal = func(p string) bool { return strings.Contains("/"+p+"/", "/../") }
		}),
		variant("symlink-escape", "the resolved path is not judged again: a link out of the root is followed", func(r *rules) {
			r.recheck = false
		}),
		variant("path-case-folding", "roots compared without letter case: /WORK/secret is under /work", func(r *rules) {
			r.under = func(p string, roots []string) bool {
				lower := make([]string, len(roots))
				for i, root := range roots {
					lower[i] = strings.ToLower(root)
				}
				return underRoot(strings.ToLower(p), lower)
			}
		}),
		variant("host-suffix", "a host is granted when it ends with a granted name", func(r *rules) {
			r.granted = func(name string, names []string) bool {
				for _, n := range names {
					if strings.HasSuffix(name, n) {
						return true
					}
				}
				return false
			}
		}),
		variant("metadata-address", "169.254.0.0/16 (the cloud metadata service) is not internal", func(r *rules) {
			linkLocal := netip.MustParsePrefix("169.254.0.0/16")
			r.internal = func(a netip.Addr) bool {
				return !linkLocal.Contains(a.Unmap()) && internalAddr(a)
			}
		}),
		variant("cgnat-as-16", "100.64.0.0/10 (carrier-grade NAT) checked as 100.64.0.0/16: 100.65–127 pass", func(r *rules) {
			wide, narrow := netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("100.64.0.0/16")
			r.internal = func(a netip.Addr) bool {
				if u := a.Unmap(); wide.Contains(u) {
					return narrow.Contains(u)
				}
				return internalAddr(a)
			}
		}),
		variant("resolve-twice", "the fetch resolves the host again: DNS rebinding gets through", func(r *rules) {
			r.resolveOnce = false
		}),
		variant("charge-after-dispatch", "unknown and malformed ops are refused before they are charged", func(r *rules) {
			r.chargeFirst = false
		}),
		variant("halt-not-latched", "a hard result refuses its op but does not halt", func(r *rules) {
			r.latch = false
		}),
		variant("output-landing", "output that lands exactly on max_output_bytes halts", func(r *rules) {
			r.fits = func(used, n, budget int64) bool { return n < budget-used }
		}),
		variant("wall-landing", "a wall that lands exactly on max_wall halts", func(r *rules) {
			r.wallFits = func(wall, budget int64) bool { return wall < budget }
		}),
	}
}

// variant is the correct sandbox with the one change defect makes.
func variant(name, defect string, change func(*rules)) Variant {
	r := correct
	change(&r)
	return Variant{Name: name, Defect: defect, Factory: func(g core.Grant, w core.World) (core.Sandbox, error) {
		return build(r, g, w), nil
	}}
}
