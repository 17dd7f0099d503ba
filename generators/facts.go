package generators

import (
	"slices"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Ops aim at the scenario's grant and world, so each op used to look the
// same things up again: which granted host is a probe, has a DNS line or
// cannot rebind, the base of each root, the links planted for a class.
// Generate computes these facts once, when the world is drawn, and keeps
// them in its draw; an op drawn by Op for a Source of its own computes
// what it needs on the spot, with the same functions.

// A hostFlag is a fact about a granted host that ops look for.
type hostFlag uint8

const (
	ipSpelled hostFlag = 1 << iota // an address literal to the resolver
	metadata                       // a metadata endpoint, or a name pointing at one
	probe                          // a host of the internal-range table (ranges.go)
	internal                       // resolves, statically, to an internal address
	dnsLined                       // named by a DNS line
	safe                           // not internal and not DNS-lined: resolves public and cannot rebind
)

// hostHas reports whether h, a host of sc, has flag f.
func hostHas(sc *scenario.Scenario, h string, f hostFlag) bool {
	switch f {
	case dnsLined:
		return hasDNS(sc, h)
	case safe:
		return !hostHas(sc, h, internal) && !hasDNS(sc, h)
	}
	return worldlessOf(h)&f != 0
}

// worldless are the flags that do not depend on the world.
const worldless = ipSpelled | metadata | probe | internal

// worldlessOf returns h's worldless flags: from tableFlags, or computed.
func worldlessOf(h string) hostFlag {
	if fl, ok := tableFlags[h]; ok {
		return fl
	}
	return worldlessFlags(h)
}

// worldlessFlags are the flags of h that do not depend on the world.
func worldlessFlags(h string) hostFlag {
	var f hostFlag
	if isIPSpelling(h) {
		f |= ipSpelled
	}
	if slices.Contains(metadataHosts, h) || h == dnsMetadata {
		f |= metadata
	}
	if probeHosts[h] {
		f |= probe
	}
	if spec.IsInternal(spec.StaticResolve(h)) {
		f |= internal
	}
	return f
}

// tableFlags holds the worldlessFlags of every host the world gen grants,
// so that an op parses and resolves none of them.
var tableFlags = map[string]hostFlag{}

// plainFlags, ipFlags, metadataFlags, rebinderFlags, dnsMetadataFlags and
// serviceNameFlags are the worldlessFlags of the hosts of those tables,
// index for index (and rangePoint.flags of a point's hosts): the world
// gen records the flags of each host it grants from them (worldRecord),
// so that the facts of a generated scenario cost no lookup of tableFlags,
// whose hashing of the name was most of what learning a host's flags
// cost.
var (
	plainFlags, ipFlags, metadataFlags, rebinderFlags []hostFlag
	dnsMetadataFlags, serviceNameFlags                hostFlag
)

// flagsOf returns the worldlessFlags of each of hosts.
func flagsOf(hosts []string) []hostFlag {
	out := make([]hostFlag, len(hosts))
	for i, h := range hosts {
		out[i] = worldlessFlags(h)
	}
	return out
}

// flagTableHosts fills tableFlags. It runs at init, once ranges.go's init
// has made the probes.
func flagTableHosts() {
	for _, hs := range [][]string{plainHosts, ipHosts, metadataHosts, {dnsMetadata, serviceName}} {
		for _, h := range hs {
			tableFlags[h] = worldlessFlags(h)
		}
	}
	for _, r := range rebinders {
		tableFlags[r.host] = worldlessFlags(r.host)
	}
	for h := range probeHosts {
		tableFlags[h] = worldlessFlags(h)
	}
	plainFlags, ipFlags, metadataFlags = flagsOf(plainHosts), flagsOf(ipHosts), flagsOf(metadataHosts)
	dnsMetadataFlags, serviceNameFlags = worldlessFlags(dnsMetadata), worldlessFlags(serviceName)
	rebinderFlags = make([]hostFlag, len(rebinders))
	for i, r := range rebinders {
		rebinderFlags[i] = worldlessFlags(r.host)
	}
	for i := range rangePoints {
		rangePoints[i].flags = flagsOf(rangePoints[i].hosts)
	}
}

// A worldRecord is what the world gen knows of the grant and the world it
// draws, recorded as it draws them for the facts of the scenario: the
// worldless flags of each granted host, in grant order (all are from the
// tables above), and the entry of each link recipe it planted, in world
// order. With it, the facts learn them without looking them up again.
type worldRecord struct {
	flags   []hostFlag
	entries []linkEntry
}

// rewind empties r for the next world, keeping its lists' memory.
func (r *worldRecord) rewind() { r.flags, r.entries = r.flags[:0], r.entries[:0] }

// facts are a scenario's facts, as Generate keeps them. A host's flag and
// a class's link entries are computed when an op first asks for them: ops
// stop at the first host that has a flag, and most scenarios need only
// some classes.
type facts struct {
	sc                    *scenario.Scenario // whose facts these are; nil for none
	readBases, writeBases []string           // each read and write root's rootBase
	hosts                 []hostFlag         // each granted host's flags, in grant order
	known                 []hostFlag         // which of them hosts holds
	links                 [3][]linkEntry     // linkEntries of each symlink class, in symlinkClasses order
	linksKnown            [3]bool
	literals              []int // appendLiteralProbes
	literalsKnown         bool
	// entries, when drawn, are the entries of every recipe planted in the
	// world, in world order, as the world gen recorded them: links then
	// filters them instead of finding them in the world by name.
	entries []linkEntry
	drawn   bool
}

// symlinkClasses are the classes of facts.links.
var symlinkClasses = [3]attack.Class{attack.SymlinkEscape, attack.SymlinkParent, attack.SymlinkLoop}

// reset makes f the facts of sc, reusing f's lists. rec, when not nil, is
// what the world gen recorded as it drew sc's grant and world: f starts
// out knowing every host's worldless flags and where the link recipes are,
// as it would learn them.
func (f *facts) reset(sc *scenario.Scenario, rec *worldRecord) {
	f.sc, f.linksKnown, f.literalsKnown = sc, [3]bool{}, false
	f.readBases = appendBases(f.readBases[:0], sc.Grant.FSRead)
	f.writeBases = appendBases(f.writeBases[:0], sc.Grant.FSWrite)
	n := len(sc.Grant.NetHosts)
	f.hosts = append(f.hosts[:0], make([]hostFlag, n)...)
	f.known = append(f.known[:0], make([]hostFlag, n)...)
	f.entries, f.drawn = f.entries[:0], rec != nil
	if rec == nil {
		return
	}
	if len(rec.flags) == n { // one per granted host, as the world gen grants them
		copy(f.hosts, rec.flags)
		for k := range f.known {
			f.known[k] = worldless
		}
	}
	f.entries = append(f.entries, rec.entries...)
}

// has reports whether the k-th granted host has flag fl. It learns all
// the worldless flags of a host at once, and each other when asked.
func (f *facts) has(k int, fl hostFlag) bool {
	if f.known[k]&fl == 0 {
		h, learnt := f.sc.Grant.NetHosts[k], fl
		switch {
		case fl&worldless != 0:
			f.hosts[k] |= worldlessOf(h)
			learnt = worldless
		case fl == safe:
			if !f.has(k, internal) && !f.has(k, dnsLined) {
				f.hosts[k] |= safe
			}
		case hostHas(f.sc, h, fl):
			f.hosts[k] |= fl
		}
		f.known[k] |= learnt
	}
	return f.hosts[k]&fl != 0
}

// linkEntries returns the link entries of class cl (a symlink class).
func (f *facts) linkEntries(cl attack.Class) []linkEntry {
	i := slices.Index(symlinkClasses[:], cl)
	if !f.linksKnown[i] {
		if f.drawn {
			f.links[i] = appendPlanted(f.links[i][:0], f.entries, cl)
		} else {
			f.links[i] = appendLinkEntries(f.links[i][:0], f.sc, cl)
		}
		f.linksKnown[i] = true
	}
	return f.links[i]
}

// literalProbes returns appendLiteralProbes of the scenario.
func (f *facts) literalProbes() []int {
	if !f.literalsKnown {
		f.literals = appendLiteralProbes(f.literals[:0], f.sc, f)
		f.literalsKnown = true
	}
	return f.literals
}

// factsOf returns the facts of sc that src keeps, or nil: only Generate's
// draw keeps any, for the scenario it draws.
func factsOf(src Source, sc *scenario.Scenario) *facts {
	if d, ok := src.(*draw); ok && d.facts.sc == sc && sc != nil {
		return &d.facts
	}
	return nil
}

func appendBases(out, roots []string) []string {
	for _, r := range roots {
		out = append(out, rootBase(r))
	}
	return out
}

// grantedWhere is a granted host with flag f, starting from a random one,
// or "" when none has it.
func grantedWhere(src Source, sc *scenario.Scenario, f hostFlag) string {
	if k := grantedAt(src, sc, f); k >= 0 {
		return sc.Grant.NetHosts[k]
	}
	return ""
}

// grantedAt is grantedWhere's index in the grant's hosts, or -1.
func grantedAt(src Source, sc *scenario.Scenario, f hostFlag) int {
	hosts := sc.Grant.NetHosts
	if len(hosts) == 0 {
		return -1
	}
	j := src.Intn(len(hosts))
	fs := factsOf(src, sc)
	for i := range hosts {
		k := (i + j) % len(hosts)
		if fs != nil && fs.has(k, f) || fs == nil && hostHas(sc, hosts[k], f) {
			return k
		}
	}
	return -1
}

// readBase is the base of one of the read roots, or /work when none is
// granted; writeBase of a write root, or /work/out.
func readBase(src Source, sc *scenario.Scenario) string {
	if f := factsOf(src, sc); f != nil {
		return pickOr(src, f.readBases, "/work")
	}
	return pickBase(src, sc.Grant.FSRead, "/work")
}

func writeBase(src Source, sc *scenario.Scenario) string {
	if f := factsOf(src, sc); f != nil {
		return pickOr(src, f.writeBases, "/work/out")
	}
	return pickBase(src, sc.Grant.FSWrite, "/work/out")
}

// pickOr returns one of xs, or dflt when there is none.
func pickOr(src Source, xs []string, dflt string) string {
	if len(xs) == 0 {
		return dflt
	}
	return pick(src, xs)
}

// underRead reports whether p, canonicalized, is under a read root;
// underWrite under a write root.
func underRead(src Source, sc *scenario.Scenario, p string) bool {
	if f := factsOf(src, sc); f != nil {
		return underBases(spec.Canonical(p), f.readBases)
	}
	return underAny(p, sc.Grant.FSRead)
}

func underWrite(src Source, sc *scenario.Scenario, p string) bool {
	if f := factsOf(src, sc); f != nil {
		return underBases(spec.Canonical(p), f.writeBases)
	}
	return underAny(p, sc.Grant.FSWrite)
}

// underBases reports whether the canonical path c is under any of bases.
func underBases(c string, bases []string) bool {
	for _, b := range bases {
		if under(c, b) {
			return true
		}
	}
	return false
}
