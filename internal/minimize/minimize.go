// Package minimize shrinks a failing scenario while it keeps failing, the
// way syzkaller minimizes programs: drop the ops after the failure, remove
// ops from the back, cut the world to the files and links the scenario
// names, point links past the links they name, remove the world's lists in
// runs, remove grant and world entries, then shorten and simplify
// arguments, memoizing every candidate on (a hash of) its canonical text.
// The result is 1-minimal: removing any single op or entry makes it pass.
package minimize

import (
	"crypto/sha256"
	"math"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Predicate reports whether a candidate still fails the same way.
type Predicate func(*scenario.Scenario) bool

// DefaultBudget bounds the predicate calls of one minimization: a scenario
// that still shrinks after it is returned as it stands.
const DefaultBudget = 20000

// DefaultTime bounds the time of one minimization.
const DefaultTime = 60 * time.Second

// Limits bound one minimization; when one is reached the smallest failing
// scenario found so far is returned. The zero Limits are DefaultBudget and
// DefaultTime.
type Limits struct {
	Calls int           // predicate calls
	Time  time.Duration // the machine's time, spent on the whole
	// Stop, when closed, cuts the minimization short at the next
	// candidate (a campaign that was interrupted).
	Stop <-chan struct{}
}

// Stats says what a minimization did.
type Stats struct {
	Calls int // predicate calls (memoized candidates are not called again)
	Memo  int // candidates answered from the memo
	// Cut is set when a limit ended the minimization early: the result
	// still fails, but may not be 1-minimal.
	Cut bool
}

type minimizer struct {
	fails    Predicate
	memo     map[[sha256.Size]byte]bool // by the hash of a candidate's canonical text: texts of long scenarios would hold megabytes
	budget   int
	deadline time.Time
	stop     <-chan struct{}
	stats    Stats
}

// Minimize returns the smallest scenario it can find within lim that still
// fails, starting from sc, which must fail. hint, when positive, is the
// 1-based step at which sc fails: every op after it is dropped first, and
// then that op alone is tried (the op that hung, say, often fails by
// itself). Expectations and comments are removed, since they do not make
// the failure. The machine's clock only bounds the work: within the limits,
// the result depends on sc and the predicate alone.
func Minimize(sc *scenario.Scenario, hint int, fails Predicate, lim Limits) (*scenario.Scenario, Stats) {
	if lim.Calls <= 0 {
		lim.Calls = DefaultBudget
	}
	if lim.Time <= 0 {
		lim.Time = DefaultTime
	}
	m := &minimizer{fails: fails, memo: map[[sha256.Size]byte]bool{}, budget: lim.Calls, deadline: time.Now().Add(lim.Time), stop: lim.Stop}
	cur := Clean(sc)
	if !m.try(cur) {
		return cur, m.stats // not failing without its expectations: nothing to do
	}
	if hint > 0 && hint < len(cur.Steps) {
		cur = m.keep(cur, func(c *scenario.Scenario) { c.Steps = c.Steps[:hint] })
	}
	if hint > 1 && hint <= len(cur.Steps) {
		cur = m.keep(cur, func(c *scenario.Scenario) { c.Steps = c.Steps[hint-1 : hint] })
	}
	cur = m.shortestPrefix(cur)
	seen := map[string]bool{} // the forms each round began from: a pass that undid another's edit would loop
	for changed := true; changed && !m.stats.Cut; {
		before := string(cur.Format())
		if seen[before] {
			m.stats.Cut = true // no fixed point: the passes went round
			break
		}
		seen[before] = true
		cur = m.plainHosts(cur) // before the world lines that spell them go
		cur = m.removeOps(cur)
		cur = m.onlyNamed(cur)
		cur = m.removeBudgetBurners(cur)
		// Chains shortened first: runs of a chain every link of which is
		// needed while it stands would be tried, and fail, in vain.
		cur = m.shortcutLinks(cur)
		cur = m.removeWorldLists(cur)
		if next := m.shortcutLinks(cur); next != cur {
			cur = m.removeWorldLists(next)
		}
		cur = m.removeEntries(cur)
		cur = m.plainRoots(cur)
		cur = m.simplifyBudgets(cur)
		cur = m.shrinkOverflows(cur)
		cur = m.shortenStrings(cur)
		changed = string(cur.Format()) != before
	}
	return cur, m.stats
}

// Clean returns a copy of sc without its expectations, comments and line
// numbers: the form Minimize starts from, since none of them makes a
// failure.
func Clean(sc *scenario.Scenario) *scenario.Scenario {
	c := sc.Clone()
	c.Comment = nil
	for i := range c.Steps {
		c.Steps[i].Expect, c.Steps[i].Comment, c.Steps[i].Line = nil, nil, 0
	}
	return c
}

// try runs the predicate on c, through the memo.
func (m *minimizer) try(c *scenario.Scenario) bool {
	key := sha256.Sum256(c.Format())
	if m.stopped() {
		m.stats.Cut = true
		return false
	}
	if v, ok := m.memo[key]; ok {
		m.stats.Memo++
		return v
	}
	if m.budget <= 0 || time.Now().After(m.deadline) {
		m.stats.Cut = true
		return false
	}
	m.budget--
	m.stats.Calls++
	v := m.fails(c)
	m.memo[key] = v
	return v
}

// keep applies edit to a copy of cur and returns the copy if it still
// fails, else cur.
func (m *minimizer) keep(cur *scenario.Scenario, edit func(*scenario.Scenario)) *scenario.Scenario {
	c := cur.Clone()
	edit(c)
	if m.try(c) {
		return c
	}
	return cur
}

// shortestPrefix finds, by bisection, a short prefix of the ops that still
// fails.
func (m *minimizer) shortestPrefix(cur *scenario.Scenario) *scenario.Scenario {
	lo, hi := 0, len(cur.Steps) // the prefix of length hi fails
	for lo < hi {
		mid := (lo + hi) / 2
		c := cur.Clone()
		c.Steps = c.Steps[:mid]
		if m.try(c) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return m.keep(cur, func(c *scenario.Scenario) { c.Steps = c.Steps[:hi] })
}

// removeOps removes chunks of ops from the back, halving the chunk size
// down to single ops.
func (m *minimizer) removeOps(cur *scenario.Scenario) *scenario.Scenario {
	for size := max(len(cur.Steps)/2, 1); size >= 1; size /= 2 {
		for end := len(cur.Steps); end > 0; end-- {
			start := max(end-size, 0)
			if end > len(cur.Steps) {
				continue
			}
			cur = m.keep(cur, func(c *scenario.Scenario) { c.Steps = slices.Delete(c.Steps, start, end) })
		}
	}
	return cur
}

// removeBudgetBurners removes single ops before the last together with
// the budget each burns: max_ops one lower, max_wall one clock step lower.
// An op whose only part in a failure is to bring the last op to a cap
// cannot go alone (the last op would then fall short of the cap), nor can
// the cap be lowered alone (an earlier op would meet it); together, the
// last op meets the caps as before, one op and one tick earlier. Where
// the tick itself matters (one past 2^63−1, SPEC §7), the clock also
// starts one step later, so that every later op reads the tick it read.
// An op that brought the output to its cap goes with the bytes it may
// have returned: max_output_bytes lower by the length of one of the
// world's strings.
func (m *minimizer) removeBudgetBurners(cur *scenario.Scenario) *scenario.Scenario {
	for i := len(cur.Steps) - 2; i >= 0; i-- {
		if i >= len(cur.Steps)-1 {
			continue
		}
		burnt := func(c *scenario.Scenario) {
			c.Steps = slices.Delete(c.Steps, i, i+1)
			if c.Grant.MaxOps > 0 {
				c.Grant.MaxOps--
			}
			if step := c.World.Clock.Step; step > 0 && c.Grant.MaxWall >= step {
				c.Grant.MaxWall -= step
			}
		}
		before := len(cur.Steps)
		cur = m.keep(cur, burnt)
		clk := cur.World.Clock
		_, inRange := clk.At(int64(before) + 1) // the read after t0's and one per op
		if len(cur.Steps) == before && !inRange && clk.Start <= math.MaxInt64-clk.Step {
			cur = m.keep(cur, func(c *scenario.Scenario) {
				burnt(c)
				c.World.Clock.Start += c.World.Clock.Step
			})
		}
		tried := map[int64]bool{}
		for _, s := range worldStrings(cur) {
			n := int64(len(*s))
			if len(cur.Steps) != before || n == 0 || n > cur.Grant.MaxOutputBytes || tried[n] {
				continue
			}
			tried[n] = true
			cur = m.keep(cur, func(c *scenario.Scenario) {
				burnt(c)
				c.Grant.MaxOutputBytes -= n
			})
		}
	}
	return cur
}

// shortcutLinks points each link past the link its target names, while
// the scenario still fails: removeEntries keeps a chain of links whole,
// since each link in it is needed, while a failure often needs only where
// the chain ends. Each link is first pointed at the chain's end, one
// candidate, returning at the first that keeps the failure (the links it
// leaves unused are for removeWorldLists), then, failing that, one hop at
// a time. The links a hop leaves unused go in removeEntries. A relative target is made absolute
// from its link's directory.
func (m *minimizer) shortcutLinks(cur *scenario.Scenario) *scenario.Scenario {
	for i := range cur.World.Links {
		if end := chainEnd(cur.World.Links, i); end != linkTarget(cur.World.Links[i]) {
			if next := m.keep(cur, func(c *scenario.Scenario) { c.World.Links[i].Target = end }); next != cur {
				return next // the rest of the chain is likely unused now: removeWorldLists takes it in runs
			}
		}
		for hops := 0; hops < len(cur.World.Links); hops++ {
			j := slices.IndexFunc(cur.World.Links, func(l scenario.Link) bool {
				return path.Clean(l.Path) == linkTarget(cur.World.Links[i])
			})
			if j < 0 || j == i {
				break
			}
			next := m.keep(cur, func(c *scenario.Scenario) { c.World.Links[i].Target = linkTarget(c.World.Links[j]) })
			if next == cur {
				break
			}
			cur = next
		}
	}
	return cur
}

// chainEnd is where the chain of links from links[i] ends: the first
// target along it that is no link's path, or the last before the chain
// comes back to a link it passed (a loop).
func chainEnd(links []scenario.Link, i int) string {
	seen := map[int]bool{i: true}
	end := linkTarget(links[i])
	for {
		j := slices.IndexFunc(links, func(l scenario.Link) bool { return path.Clean(l.Path) == end })
		if j < 0 || seen[j] {
			return end
		}
		seen[j] = true
		end = linkTarget(links[j])
	}
}

// linkTarget is where l points, absolute and clean.
func linkTarget(l scenario.Link) string {
	if path.IsAbs(l.Target) {
		return path.Clean(l.Target)
	}
	return path.Join(path.Dir(l.Path), l.Target)
}

// removeWorldLists removes parts of the world's lists of links, files,
// routes, DNS lines and tool outputs, and of the grant's hosts, whole,
// halves first, then quarters, down to pairs: a failure that needs few of
// a list's entries then costs a few candidates for each half it does not
// need, not one for each entry and each hop of its chains of links, which
// on a slow sandbox (a proxy or a server started for each candidate)
// spend the minimizer's time before removeEntries comes to them.
func (m *minimizer) removeWorldLists(cur *scenario.Scenario) *scenario.Scenario {
	cur = removeChunks(m, cur, func(c *scenario.Scenario) *[]scenario.Link { return &c.World.Links })
	cur = removeChunks(m, cur, func(c *scenario.Scenario) *[]scenario.File { return &c.World.Files })
	cur = removeChunks(m, cur, func(c *scenario.Scenario) *[]string { return &c.Grant.NetHosts })
	cur = removeChunks(m, cur, func(c *scenario.Scenario) *[]scenario.Route { return &c.World.Routes })
	cur = removeChunks(m, cur, func(c *scenario.Scenario) *[]scenario.DNSRecord { return &c.World.DNS })
	return removeChunks(m, cur, func(c *scenario.Scenario) *[]scenario.ToolOutput { return &c.World.ToolOutputs })
}

// onlyNamed tries the world's files and links cut to those the scenario
// names: the grant's roots and the paths its ops read and write, each
// link at one of them or on the way to one, and, followed from each such
// link, where it leads, up to spec.MaxLinks links from a name, as a
// resolution follows them. A failure through a link out of a root needs
// that link and what it reaches; the world drawn around it goes in one
// candidate, where removeWorldLists and removeEntries would take one for
// every few entries (on a server started for each candidate, most of the
// time to a first finding). A failure that needs more (a path ".." walks
// back out of a link's target, a file no op names) passes on the cut
// world, which costs a candidate a round.
func (m *minimizer) onlyNamed(cur *scenario.Scenario) *scenario.Scenario {
	type name struct {
		path string
		hops int // links followed to it
	}
	named := map[string]bool{}
	var todo []name
	// A link whose target lies below it (nest -> nest/x) names a longer
	// path at each hop, and links that share a prefix branch: the names
	// are bounded, and past the bound the world is left as it is.
	most := 4*(len(cur.World.Files)+len(cur.World.Links)) + 64
	add := func(p string, hops int) {
		if p = path.Clean(p); path.IsAbs(p) && !named[p] {
			named[p] = true
			todo = append(todo, name{p, hops})
		}
	}
	for _, r := range slices.Concat(cur.Grant.FSRead, cur.Grant.FSWrite) {
		add(r, 0)
	}
	for _, st := range cur.Steps {
		if (st.Op.Kind == core.OpRead || st.Op.Kind == core.OpWrite) && len(st.Op.Args) > 0 {
			add(st.Op.Args[0], 0)
		}
	}
	linked := make([]bool, len(cur.World.Links))
	for len(todo) > 0 {
		if len(named) > most {
			return cur
		}
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for i, l := range cur.World.Links {
			at := path.Clean(l.Path)
			rest, below := strings.CutPrefix(n.path, at+"/")
			if at == n.path {
				rest, below = "", true
			}
			if below && at != "/" {
				linked[i] = true
				if n.hops < spec.MaxLinks {
					add(path.Join(linkTarget(l), rest), n.hops+1)
				}
			}
		}
	}
	files := slices.IndexFunc(cur.World.Files, func(f scenario.File) bool { return !named[path.Clean(f.Path)] }) >= 0
	if !files && !slices.Contains(linked, false) {
		return cur // the world holds nothing else
	}
	return m.keep(cur, func(c *scenario.Scenario) {
		c.World.Files = slices.DeleteFunc(c.World.Files, func(f scenario.File) bool { return !named[path.Clean(f.Path)] })
		links := c.World.Links[:0]
		for i, l := range c.World.Links {
			if linked[i] {
				links = append(links, l)
			}
		}
		c.World.Links = links
	})
}

// removeChunks removes runs of the list list picks out, from the whole
// list down to runs of two, each run that can go, from the back.
func removeChunks[T any](m *minimizer, cur *scenario.Scenario, list func(*scenario.Scenario) *[]T) *scenario.Scenario {
	for size := len(*list(cur)); size >= 2; size /= 2 {
		for end := len(*list(cur)); end-size >= 0; end -= size {
			cur = m.keep(cur, func(c *scenario.Scenario) { l := list(c); *l = slices.Delete(*l, end-size, end) })
		}
	}
	return cur
}

// removeEntries removes grant items and world entries one at a time.
func (m *minimizer) removeEntries(cur *scenario.Scenario) *scenario.Scenario {
	lists := []func(*scenario.Scenario) *[]string{
		func(c *scenario.Scenario) *[]string { return &c.Grant.FSRead },
		func(c *scenario.Scenario) *[]string { return &c.Grant.FSWrite },
		func(c *scenario.Scenario) *[]string { return &c.Grant.NetHosts },
		func(c *scenario.Scenario) *[]string { return &c.Grant.Tools },
	}
	for _, list := range lists {
		for i := len(*list(cur)) - 1; i >= 0; i-- {
			cur = m.keep(cur, func(c *scenario.Scenario) { l := list(c); *l = slices.Delete(*l, i, i+1) })
		}
	}
	for i := len(cur.World.Files) - 1; i >= 0; i-- {
		cur = m.keep(cur, func(c *scenario.Scenario) { c.World.Files = slices.Delete(c.World.Files, i, i+1) })
	}
	for i := len(cur.World.Routes) - 1; i >= 0; i-- {
		cur = m.keep(cur, func(c *scenario.Scenario) { c.World.Routes = slices.Delete(c.World.Routes, i, i+1) })
	}
	for i := len(cur.World.Links) - 1; i >= 0; i-- {
		cur = m.keep(cur, func(c *scenario.Scenario) { c.World.Links = slices.Delete(c.World.Links, i, i+1) })
	}
	for i := len(cur.World.ToolOutputs) - 1; i >= 0; i-- {
		cur = m.keep(cur, func(c *scenario.Scenario) { c.World.ToolOutputs = slices.Delete(c.World.ToolOutputs, i, i+1) })
	}
	for i := len(cur.World.DNS) - 1; i >= 0; i-- {
		cur = m.keep(cur, func(c *scenario.Scenario) { c.World.DNS = slices.Delete(c.World.DNS, i, i+1) })
		if i >= len(cur.World.DNS) {
			continue
		}
		for j := len(cur.World.DNS[i].Addrs) - 1; j >= 0 && len(cur.World.DNS[i].Addrs) > 1; j-- {
			cur = m.keep(cur, func(c *scenario.Scenario) {
				c.World.DNS[i].Addrs = slices.Delete(c.World.DNS[i].Addrs, j, j+1)
			})
		}
	}
	return cur
}

// plainRoots tries each fs root written with a trailing slash without
// it: one failure found under both spellings of a root is then one
// minimized text, and one finding.
func (m *minimizer) plainRoots(cur *scenario.Scenario) *scenario.Scenario {
	for _, list := range []func(*scenario.Scenario) []string{
		func(c *scenario.Scenario) []string { return c.Grant.FSRead },
		func(c *scenario.Scenario) []string { return c.Grant.FSWrite },
	} {
		for i, r := range list(cur) {
			if len(r) > 1 && strings.HasSuffix(r, "/") {
				cur = m.keep(cur, func(c *scenario.Scenario) { list(c)[i] = strings.TrimSuffix(r, "/") })
			}
		}
	}
	return cur
}

// simplifyBudgets tries the defaults, which the printer leaves out, then
// smaller numbers: a budget that must be exceeded is exceeded soonest when
// small, and then fewer ops are needed.
func (m *minimizer) simplifyBudgets(cur *scenario.Scenario) *scenario.Scenario {
	def := scenario.New()
	cur = m.keep(cur, func(c *scenario.Scenario) { c.World.Clock = def.World.Clock })
	for _, field := range []func(*scenario.Scenario) *int64{
		func(c *scenario.Scenario) *int64 { return &c.Grant.MaxOps },
		func(c *scenario.Scenario) *int64 { return &c.Grant.MaxWall },
		func(c *scenario.Scenario) *int64 { return &c.Grant.MaxOutputBytes },
		func(c *scenario.Scenario) *int64 { return &c.World.Clock.Start },
		func(c *scenario.Scenario) *int64 { return &c.World.Clock.Step },
	} {
		cur = m.shrinkNumber(cur, field, *field(def))
	}
	return cur
}

// shrinkNumber tries the default, then 0, then halving, then bisection, on
// the number field picks out, keeping each that still fails.
func (m *minimizer) shrinkNumber(cur *scenario.Scenario, field func(*scenario.Scenario) *int64, def int64) *scenario.Scenario {
	set := func(v int64) func(*scenario.Scenario) { return func(c *scenario.Scenario) { *field(c) = v } }
	if *field(cur) != def {
		cur = m.keep(cur, set(def))
	}
	if *field(cur) == def {
		// A default needs no line; leave it unless a tiny value lets ops
		// go. Of one op none can go but the op itself, which removeOps
		// has tried already: a budget plays no part before the first op.
		if len(cur.Steps) <= 1 {
			return cur
		}
		for _, v := range []int64{0, 1} {
			c := m.keep(cur, set(v))
			if c == cur {
				continue
			}
			if shorter := m.removeOps(c); len(shorter.Steps) < len(cur.Steps) {
				return shorter
			}
		}
		return cur
	}
	cur = m.keep(cur, set(0))
	for n := *field(cur); n > 1; n = *field(cur) {
		next := m.keep(cur, set(n/2))
		if next == cur {
			// Half passes: the smallest value that fails lies above it.
			// Bisected, not stepped down one at a time: a clock that
			// must start within a few steps of 2^63−1 would take more
			// candidates than any budget.
			return m.bisect(cur, set, n/2, n)
		}
		cur = next
	}
	return cur
}

// bisect returns cur with the value set writes lowered from hi, with which
// cur fails, towards lo, with which it passes: the result fails, and with
// its value one less it passes. It steps down from hi by 1, 2, 4, … until
// a step passes, then bisects the last step: a value an earlier round
// brought down costs a candidate, and one a few above its least failing
// value a few, where bisecting from lo would take one for each bit of the
// range.
func (m *minimizer) bisect(cur *scenario.Scenario, set func(int64) func(*scenario.Scenario), lo, hi int64) *scenario.Scenario {
	for d := int64(1); d > 0 && d < hi-lo; d *= 2 {
		next := m.keep(cur, set(hi-d))
		if next == cur {
			lo = hi - d
			break
		}
		cur, hi = next, hi-d
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if next := m.keep(cur, set(mid)); next != cur {
			cur, hi = next, mid
		} else {
			lo = mid
		}
	}
	return cur
}

// overflowBudget is the output budget shrinkOverflows tries.
const overflowBudget = 16

// shrinkOverflows tries a small output budget together with the world's
// strings that overflow the budget cut to one byte over it: a halt on
// max_output_bytes needs no more, but shrinking the budget alone or the
// string alone makes it pass, so each pass by itself would keep the
// default budget and a body of a megabyte in the file.
func (m *minimizer) shrinkOverflows(cur *scenario.Scenario) *scenario.Scenario {
	budget := cur.Grant.MaxOutputBytes
	if budget <= overflowBudget || !slices.ContainsFunc(worldStrings(cur), func(s *string) bool { return int64(len(*s)) > budget }) {
		return cur
	}
	return m.keep(cur, func(c *scenario.Scenario) {
		c.Grant.MaxOutputBytes = overflowBudget
		for _, s := range worldStrings(c) {
			if int64(len(*s)) > budget {
				*s = (*s)[:overflowBudget+1]
			}
		}
	})
}

// plainHosts tries, for each net_fetch, the spelling its scenario writes
// its host in first (a granted host, else a dns line's, else a route's)
// where the op spells it another way (in ASCII case, or one trailing
// dot): a failure that does not need the variant reads as what it is, a
// rebinding rather than a case fold, and one that does keeps it. One
// spelling for each name, so that no two rounds trade spellings back and
// forth.
func (m *minimizer) plainHosts(cur *scenario.Scenario) *scenario.Scenario {
	for i := range cur.Steps {
		op := cur.Steps[i].Op
		if op.Kind != core.OpFetch || len(op.Args) != 2 {
			continue
		}
		h, ok := writtenSpelling(cur, op.Args[0])
		if ok && h != op.Args[0] && (!urlCarried(op) || spec.URLCarriesHost(h)) {
			cur = m.keep(cur, func(c *scenario.Scenario) { c.Steps[i].Op.Args[0] = h })
		}
	}
	return cur
}

// writtenSpelling returns the first host sc's grant, then its dns lines,
// then its routes write that names host (the same in ASCII case, and but
// for one trailing dot), and whether one does.
func writtenSpelling(sc *scenario.Scenario, host string) (string, bool) {
	hosts := slices.Clone(sc.Grant.NetHosts)
	for _, d := range sc.World.DNS {
		hosts = append(hosts, d.Host)
	}
	for _, r := range sc.World.Routes {
		hosts = append(hosts, r.Host)
	}
	n := spec.NormalizeHost(host)
	i := slices.IndexFunc(hosts, func(h string) bool { return spec.NormalizeHost(h) == n })
	if i < 0 {
		return "", false
	}
	return hosts[i], true
}

// worldStrings returns pointers to the data, bodies and outputs of sc's
// world, the strings an op's output is made of.
func worldStrings(sc *scenario.Scenario) []*string {
	var out []*string
	for i := range sc.World.Files {
		out = append(out, &sc.World.Files[i].Data)
	}
	for i := range sc.World.Routes {
		out = append(out, &sc.World.Routes[i].Body)
	}
	for i := range sc.World.ToolOutputs {
		out = append(out, &sc.World.ToolOutputs[i].Output)
	}
	return out
}

// shortenStrings tries shorter forms of every op argument and every data,
// body and output in the world. A net_fetch that a URL carries stays
// carried (SPEC §14, "What HTTP carries"): a door that sends it over HTTP
// judges it there, and a sandbox that fetches for itself answers one a URL
// cannot carry apart, so a shorter form that HTTP cannot carry, a path
// of "" rather than "/", would judge other code than the failure met.
func (m *minimizer) shortenStrings(cur *scenario.Scenario) *scenario.Scenario {
	for i := range cur.Steps {
		carried := urlCarried(cur.Steps[i].Op)
		for j := range cur.Steps[i].Op.Args {
			var keeps func(string) bool
			switch {
			case carried && j == 0:
				keeps = spec.URLCarriesHost
			case carried && j == 1:
				keeps = spec.URLCarriesPath
			}
			cur = m.shorten(cur, func(c *scenario.Scenario) *string { return &c.Steps[i].Op.Args[j] }, keeps)
		}
	}
	for i := range worldStrings(cur) {
		cur = m.shorten(cur, func(c *scenario.Scenario) *string { return worldStrings(c)[i] }, nil)
	}
	return cur
}

// urlCarried reports whether op is a net_fetch whose host and path a URL
// carries unchanged.
func urlCarried(op core.Op) bool {
	return op.Kind == core.OpFetch && spec.WellFormed(op.Args, 2) && spec.URLCarriesHost(op.Args[0]) && spec.URLCarriesPath(op.Args[1])
}

// shorten tries "", then halves, then dropping one byte at the end, on the
// string field picks out, keeping each that still fails and that keeps
// accepts (nil: any).
func (m *minimizer) shorten(cur *scenario.Scenario, field func(*scenario.Scenario) *string, keeps func(string) bool) *scenario.Scenario {
	try := func(v string) *scenario.Scenario {
		if keeps != nil && !keeps(v) {
			return cur
		}
		return m.keep(cur, func(c *scenario.Scenario) { *field(c) = v })
	}
	if *field(cur) == "" {
		return cur
	}
	cur = try("")
	for s := *field(cur); len(s) > 1; s = *field(cur) {
		next := try(s[:len(s)/2])
		if next == cur {
			next = try(s[len(s)/2:])
		}
		if next == cur {
			break
		}
		cur = next
	}
	if s := *field(cur); len(s) > 1 {
		cur = try(s[:len(s)-1])
	}
	return cur
}

// stopped reports whether Limits.Stop is closed.
func (m *minimizer) stopped() bool {
	select {
	case <-m.stop:
		return true
	default:
		return false
	}
}
