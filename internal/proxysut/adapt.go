package proxysut

import (
	"net/url"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Adapt rewrites a generated scenario into one a proxy can be asked: its
// net_fetch ops whose host and path a URL carries unchanged (carried),
// but for those of a host a URL cannot tell from a granted one (aliased),
// under a grant of net hosts only, over the world's routes and dns lines.
// A proxy has no budgets: the scenario gets SPEC §10's default budgets
// and clock, which the harness charges and which a reproducer does not
// print. It returns nil when no op is left.
func Adapt(sc *scenario.Scenario) *scenario.Scenario {
	out := sc.Clone()
	out.Grant.FSRead, out.Grant.FSWrite, out.Grant.Tools = nil, nil, nil
	defaults := scenario.New()
	out.Grant.Budgets, out.World.Clock = defaults.Grant.Budgets, defaults.World.Clock
	out.World.Files, out.World.Links, out.World.ToolOutputs = nil, nil, nil
	out.Steps = slices.DeleteFunc(out.Steps, func(st scenario.Step) bool {
		return !carried(st.Op, out.World) || aliased(st.Op.Args[0], out.Grant.NetHosts)
	})
	if len(out.Steps) == 0 {
		return nil
	}
	return out
}

// AdaptOpen is Adapt for a proxy or server given no hosts (its profile
// renders none: an MCP fetch tool without an allow-list): the one grant it
// can express is every host, so each host a scenario names is granted —
// those its ops ask, and those its redirects' Locations name, which a
// server that follows redirects asks next — and what it is judged on is
// where it connects (SPEC §6), not which hosts.
func AdaptOpen(sc *scenario.Scenario) *scenario.Scenario {
	out := Adapt(sc)
	if out == nil {
		return nil
	}
	grant := func(h string) {
		if !slices.Contains(out.Grant.NetHosts, h) {
			out.Grant.NetHosts = append(out.Grant.NetHosts, h)
		}
	}
	for _, st := range out.Steps {
		grant(st.Op.Args[0])
	}
	for _, r := range out.World.Routes {
		if h, ok := locationHost(r); ok {
			grant(h)
		}
	}
	return out
}

// AdaptFixed is Adapt for a server that allows hosts of its own, whatever
// it is given (Profile.Hosts: a fetch tool for one site). The scenario's
// first granted hosts become those it does not grant yet, one for one,
// wherever it names them: its ops (byte for byte, as the grant matches
// them), its dns lines, its routes and the Locations its redirects name
// (as the world matches them, case and a trailing dot aside); the grant is
// the server's hosts, so that the scenario's rebinding, redirects and
// internal answers reach what the server allows. A scenario that names a
// host to be renamed to already is left out: renaming would make two
// hosts one. A scenario so adapted is adapted again as it is (the
// minimizer's candidates are).
func AdaptFixed(sc *scenario.Scenario, hosts []string) *scenario.Scenario {
	out := Adapt(sc)
	if out == nil {
		return nil
	}
	var targets []string
	taken := map[string]bool{}
	for _, h := range hosts {
		if !slices.Contains(out.Grant.NetHosts, h) {
			targets = append(targets, h)
			taken[spec.NormalizeHost(h)] = true
		}
	}
	named := func(h string) bool { return taken[spec.NormalizeHost(h)] }
	for _, st := range out.Steps {
		if named(st.Op.Args[0]) {
			return nil
		}
	}
	for _, d := range out.World.DNS {
		if named(d.Host) {
			return nil
		}
	}
	for _, r := range out.World.Routes {
		if h, ok := locationHost(r); named(r.Host) || ok && named(h) {
			return nil
		}
	}
	byGrant, byWorld := map[string]string{}, map[string]string{}
	for _, g := range out.Grant.NetHosts {
		if _, done := byGrant[g]; done || len(byGrant) == len(targets) || !spec.URLCarriesHost(g) || slices.Contains(hosts, g) {
			continue
		}
		byGrant[g] = targets[len(byGrant)]
		if _, ok := byWorld[spec.NormalizeHost(g)]; !ok {
			byWorld[spec.NormalizeHost(g)] = byGrant[g]
		}
	}
	for i, st := range out.Steps {
		if to, ok := byGrant[st.Op.Args[0]]; ok {
			out.Steps[i].Op.Args = []string{to, st.Op.Args[1]}
		}
	}
	for i, d := range out.World.DNS {
		if to, ok := byWorld[spec.NormalizeHost(d.Host)]; ok {
			out.World.DNS[i].Host = to
		}
	}
	for i, r := range out.World.Routes {
		if to, ok := byWorld[spec.NormalizeHost(r.Host)]; ok {
			out.World.Routes[i].Host = to
		}
		if h, ok := locationHost(r); ok {
			if to, ok := byWorld[spec.NormalizeHost(h)]; ok {
				out.World.Routes[i].Body = withHost(r.Body, to)
			}
		}
	}
	out.Grant.NetHosts = slices.Clone(hosts)
	return out
}

// withHost is the URL loc with its host replaced by host, its port and
// the rest of its spelling kept.
func withHost(loc, host string) string {
	u, err := url.Parse(loc)
	i := strings.Index(loc, "//")
	if err != nil || i < 0 || u.Host == "" {
		return loc
	}
	at := strings.Index(loc[i+2:], u.Host)
	if at < 0 {
		return loc
	}
	if p := u.Port(); p != "" {
		host += ":" + p
	}
	at += i + 2
	return loc[:at] + host + loc[at+len(u.Host):]
}

// locationHost is the host a redirect route's Location names, as a
// request for it names it (no brackets, no port), when r is a redirect
// whose Location names one a URL carries unchanged (not a relative one,
// which stays on r's host).
func locationHost(r scenario.Route) (string, bool) {
	if !r.Redirect {
		return "", false
	}
	u, err := url.Parse(r.Body)
	if err != nil {
		return "", false
	}
	h := u.Hostname()
	return h, h != "" && spec.URLCarriesHost(h)
}

// adaptIgnoring is adapt for a sandbox whose profile ignores some names
// (Profile.IgnoreHosts): a scenario that names one (its grant, ops, dns
// lines, routes or the Locations its redirects name) is left out, since
// the sandbox's DNS server answers such a name nothing.
func adaptIgnoring(adapt func(*scenario.Scenario) *scenario.Scenario, ignored func(string) bool) func(*scenario.Scenario) *scenario.Scenario {
	return func(sc *scenario.Scenario) *scenario.Scenario {
		out := adapt(sc)
		if out == nil {
			return nil
		}
		named := slices.Clone(out.Grant.NetHosts)
		for _, st := range out.Steps {
			named = append(named, st.Op.Args[0])
		}
		for _, d := range out.World.DNS {
			named = append(named, d.Host)
		}
		for _, r := range out.World.Routes {
			named = append(named, r.Host)
			if h, ok := locationHost(r); ok {
				named = append(named, h)
			}
		}
		if slices.ContainsFunc(named, func(h string) bool { return ignored(spec.NormalizeHost(h)) }) {
			return nil
		}
		return out
	}
}

// asks says what Adapt keeps of a scenario (carried, aliased).
const asks = `net_fetch ops a URL carries as the model asks them: a host of the characters a URL's host holds unescaped, an IPv4 spelling with no dns line of its own or an IPv6 literal with no zone, with no port and no user, that a URL tells from every granted host; a path that starts with "/", with no "%", no "." or ".." segment and nothing a URL escapes`

// carried reports whether op is a net_fetch a proxy can be asked as the
// model asks it, in world w: its host is a name of letters, digits and
// the characters a URL's host holds unescaped, an IPv4 spelling, or an
// IPv6 literal without a zone (sent in brackets), with no port and no
// user; its path starts with "/", holds only characters a URL's path and
// query carry unescaped (no "%", which a server decodes), and has no "."
// or ".." segment (which clients and proxies remove). A host that is an
// IP spelling with a dns line of its own is left out too: the model's
// resolver asks the line, a real one takes the literal as it is.
func carried(op core.Op, w scenario.WorldSpec) bool {
	if op.Kind != core.OpFetch || !spec.WellFormed(op.Args, 2) {
		return false
	}
	host, path := op.Args[0], op.Args[1]
	return spec.URLCarriesHost(host) && spec.URLCarriesPath(path) && !(isIPSpelling(host) && hasDNS(w, host))
}

// aliased reports whether host is not granted but a URL carries it as it
// carries a granted host ("[::1]" and "::1" are both "http://[::1]/"):
// the model tells them apart, no proxy can.
func aliased(host string, granted []string) bool {
	return !slices.Contains(granted, host) && slices.ContainsFunc(granted, func(g string) bool { return urlHost(g) == urlHost(host) })
}

func isIPSpelling(host string) bool {
	h := spec.NormalizeHost(host)
	return door.IsIPv4Spelling(h) || door.IsIPv6Literal(h)
}

func hasDNS(w scenario.WorldSpec, host string) bool {
	h := spec.NormalizeHost(host)
	return slices.ContainsFunc(w.DNS, func(d scenario.DNSRecord) bool { return spec.NormalizeHost(d.Host) == h })
}
