package campaign

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/oracle"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// MaxPerInvariant bounds how many raw findings of one invariant are
// minimized: a badly broken sandbox fails nearly every check, and the
// earliest few, minimized, already name its defect.
const MaxPerInvariant = 4

// MaxPerClass bounds how many of an invariant's raw findings come from
// ops of one attack class, and MaxPerCause from ops of one cause (what a
// guard that lets the op through gets wrong: a fetch's hostCause, a file
// op's pathCause): the others are left to other causes, since one defect
// (a host matched in any case, a range a guard misses, no check of the
// roots at all) would otherwise fill every slot and hide a second one.
const (
	MaxPerClass = 2
	MaxPerCause = 1
)

// raw is a finding before minimization.
type raw struct {
	check int
	sc    *scenario.Scenario
	f     oracle.Finding
	// along, for a verdict-matches-model finding, are the other
	// invariants its op failed (twins): it is minimized failing them
	// too, to the scenario they shrink to. Left free, a wrong verdict
	// at an egress shrinks past the fetch (the path "" a child never
	// sends), and its file shows none.
	along []oracle.ID
	// kept says the op connected, with no lookup of its name in the op,
	// to a public answer the sandbox kept from an earlier one (a DNS
	// cache), and the finding is that this is not the answer the world's
	// last resolve gave (keptCause).
	kept bool
	// stricter is the reason the door counted the op stricter than the
	// model under, answering it as the model does; "" for none.
	stricter string
}

// stepMarks are what a real door counted at the ops of a check, by place
// (0 the first op): an op that connected to a kept DNS answer, and the
// reason of an op counted stricter than the model.
type stepMarks struct {
	kept     map[int]bool
	stricter map[int]string
}

// at is the raw finding f of check i, its marks taken from m.
func (m stepMarks) at(i int, sc *scenario.Scenario, f oracle.Finding, along []oracle.ID) raw {
	r := raw{check: i, sc: sc, f: f, along: along, kept: keptFinding(f, m.kept)}
	if f.Step > 0 {
		r.stricter = m.stricter[f.Step-1]
	}
	return r
}

// keptCause is the cause of a no-internal-egress finding at a fetch that
// connected to a public answer the sandbox kept from an earlier op (a
// DNS cache, counted by the door): SPEC §14 journals the world's resolve
// for it, whose answer the fetch did not use. One cause, whatever the
// host: a cache keeps every name's answer, and its findings would
// otherwise fill the host's cause (a name that rebinds) before a check
// that lets the rebinding through is met.
const keptCause = "a fetch from a public DNS answer the sandbox kept from an earlier op"

// notTheAddressChecked is in the oracle's words on a fetch from another
// address than the last resolve of its host answered.
const notTheAddressChecked = "the address checked is not the address used"

// keptFinding reports whether f, at an op the door counted as connecting
// to a kept answer (kept, by the op's place), is that op's fetch from an
// answer the last resolve did not give, the address public.
func keptFinding(f oracle.Finding, kept map[int]bool) bool {
	return f.Step > 0 && kept[f.Step-1] && f.Invariant == oracle.NoInternalEgress &&
		strings.Contains(f.Detail, notTheAddressChecked) && !strings.Contains(f.Detail, "an internal address")
}

// twins returns, for f among the findings fs of one check, what raw.along
// holds: for a verdict-matches-model finding at an op, the invariants of
// the others at that op, hangs left out (a hang is minimized apart); else
// none.
func twins(f oracle.Finding, fs []oracle.Finding) []oracle.ID {
	if f.Invariant != oracle.VerdictMatchesModel || f.Step <= 0 {
		return nil
	}
	var ids []oracle.ID
	for _, o := range fs {
		if o.Step == f.Step && o.Invariant != f.Invariant && !o.Hang {
			ids = append(ids, o.Invariant)
		}
	}
	return ids
}

// collector takes the raw findings of a campaign as its workers make them
// and keeps, per invariant, only the MaxPerInvariant of the lowest check
// indices, at most MaxPerClass of them for ops of one attack class:
// memory stays flat however broken the sandbox. A raw finding is
// final once every check before it has finished (the watermark has passed
// it), since no lower one can come any more; final findings go to the
// sink in check order, as they become final. So what is minimized depends
// on the seed and the checks alone, never on which worker finished first;
// but for a sandbox whose hangs are judged again (release): the places a
// hang that a fresh session answered in time took are given back when
// that judgement ends, and which later findings then fill them depends
// on how far the workers had gone by then.
type collector struct {
	mu       sync.Mutex
	finished finishedSet // the checks finished: every one below its watermark, and some above it
	pending  [judge.NumInvariants][]raw
	accepted [judge.NumInvariants]int
	byCause  [judge.NumInvariants]map[string]int // accepted, by the cause of the violating op
	full     [judge.NumInvariants]atomic.Bool    // accepted == the most per invariant: workers need not offer
	// causeFull holds, as fullKey, an invariant and a cause once as many
	// findings of them were accepted as the cause allows.
	causeFull sync.Map
	most      int          // the most findings kept per invariant
	first     bool         // StopAtFirst: only the first finding of the lowest check with any is kept
	handed    bool         // StopAtFirst: that finding went to the sink
	firstBad  atomic.Int64 // the lowest check with a finding, for StopAtFirst
	// confirmsHangs says the target's hangs are judged again before they
	// count (sut.Target.ConfirmHangs): under StopAtFirst such a hang does
	// not end the campaign when found, only once the sink confirms it
	// (confirmed), since a slow machine alone may have made it.
	confirmsHangs bool
	raws          atomic.Int64        // raw findings offered, kept or not
	seen          sync.Map            // the causes counted, whatever their invariant, up to MaxCauses: each one's *causeCount
	notes         map[int][]causeNote // the violations of new causes of the checks offered above the watermark, under mu, counted once it passes them
	closed        bool                // flushed: the checks still running (given up on) offer nothing more
	over          atomic.Bool         // closed, read without the lock: a check given up on is not counted either
	sink          func(raw)           // called with mu held; it must not block
	// seenMu guards the adding of a cause to seen, and distinct, the
	// causes in it; the violations of the causes past MaxCauses are
	// counted together, in others.
	seenMu   sync.Mutex
	distinct int
	others   *causeCount
}

func newCollector(first bool, most int, sink func(raw)) *collector {
	if most <= 0 {
		most = MaxPerInvariant
	}
	k := &collector{first: first, most: most, sink: sink, notes: map[int][]causeNote{}}
	for id := range k.byCause {
		k.byCause[id] = map[string]int{}
	}
	k.firstBad.Store(1 << 62)
	k.others = newCauseCount(false)
	return k
}

// offer takes the findings of check i, and what the door counted at its
// ops (marks); it is safe for concurrent use. It keeps a Clone of sc, if
// any, since the worker draws its next scenario into sc's memory.
func (k *collector) offer(i int, sc *scenario.Scenario, fs []oracle.Finding, marks stepMarks) {
	if k.over.Load() {
		return // a check given up on: its findings are not judged
	}
	var notes []causeNote
	for _, f := range fs {
		cause, most := causeOf(marks.at(i, sc, f, nil))
		if c := k.countedNow(cause); c != nil {
			c.add(i, f.Invariant) // a count and a least check come out the same in any order
			continue
		}
		notes = append(notes, causeNote{cause, most == MaxPerClass, f.Invariant})
	}
	k.mu.Lock()
	if !k.closed {
		k.raws.Add(int64(len(fs)))
		if len(notes) > 0 {
			k.notes[i] = notes
		}
	}
	k.mu.Unlock()
	if slices.ContainsFunc(fs, func(f oracle.Finding) bool { return !k.awaitsConfirm(f) }) {
		k.lowerFirstBad(i)
	}
	if !slices.ContainsFunc(fs, func(f oracle.Finding) bool { return k.wants(marks.at(i, sc, f, nil)) }) {
		return // the common case against a broken sandbox: nothing more of these is kept
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	var kept *scenario.Scenario // one copy for all the findings of the check
	for _, f := range fs {
		id := f.Invariant
		r := marks.at(i, sc, f, twins(f, fs))
		if !k.wants(r) {
			continue
		}
		p := append(k.pending[id], r)
		slices.SortFunc(p, func(a, b raw) int { return a.check - b.check })
		p = k.room(id, p)
		for j := range p {
			if p[j].sc == sc { // this check's: keep a copy, not the worker's memory
				if kept == nil {
					kept = sc.Clone()
				}
				p[j].sc = kept
			}
		}
		k.pending[id] = p
	}
}

// awaitsConfirm reports whether f is a hang the sink judges again before
// it counts (sink.confirmHang).
func (k *collector) awaitsConfirm(f oracle.Finding) bool { return k.confirmsHangs && f.Hang }

// lowerFirstBad makes check i the lowest with a finding, unless a lower
// one has one; it is safe for concurrent use.
func (k *collector) lowerFirstBad(i int) {
	for old := k.firstBad.Load(); int64(i) < old && !k.firstBad.CompareAndSwap(old, int64(i)); old = k.firstBad.Load() {
	}
}

// confirmed is told by the sink that the hang of check i was judged again
// and counts: under StopAtFirst it is a first finding, and no check after
// it is handed out.
func (k *collector) confirmed(i int) { k.lowerFirstBad(i) }

// release gives back the places r took among the findings kept (its
// invariant's and its cause's): r is a hang a fresh session answered in
// time, no finding, and a later hang of the same op may be a real one.
func (k *collector) release(r raw) {
	k.mu.Lock()
	defer k.mu.Unlock()
	id := r.f.Invariant
	cause, _ := causeOf(r)
	k.accepted[id]--
	k.full[id].Store(false)
	if k.byCause[id][cause]--; k.byCause[id][cause] <= 0 {
		delete(k.byCause[id], cause)
	}
	k.causeFull.Delete(fullKey(id, cause))
}

// MaxCauses bounds the distinct causes a campaign lists (CausesSeen): a
// sandbox whose failures name something new each time would otherwise
// grow the list, and the summary, with its checks. The violations of the
// causes past it are counted together, under OtherCauses.
const MaxCauses = 256

// OtherCauses is the cause the violations of the causes past the first
// MaxCauses are counted under, listed last.
const OtherCauses = "other causes, past the first 256 distinct ones, counted together"

// causeCounter returns the count of cause's violations, added to seen if
// it is new and seen has room, else the count of the others; class says
// the cause is an op's attack class. The caller holds mu (countCauses).
func (k *collector) causeCounter(cause string, class bool) *causeCount {
	if c := k.countedNow(cause); c != nil {
		return c
	}
	k.seenMu.Lock()
	defer k.seenMu.Unlock()
	// Only here, under mu, is a cause added: none was since countedNow.
	c := newCauseCount(class)
	k.seen.Store(cause, c)
	k.distinct++
	return c
}

// causeCount counts the violations of one cause, and the lowest check
// with one; it is safe for concurrent use.
type causeCount struct {
	class      bool // the cause is the op's attack class (causeOf)
	violations atomic.Int64
	first      atomic.Int64
	invariants atomic.Uint64 // a bit for each invariant violated, by ID
}

func newCauseCount(class bool) *causeCount {
	c := &causeCount{class: class}
	c.first.Store(1 << 62)
	return c
}

// add counts a violation of invariant id by check i.
func (c *causeCount) add(i int, id oracle.ID) {
	c.violations.Add(1)
	c.invariants.Or(1 << id)
	for old := c.first.Load(); int64(i) < old && !c.first.CompareAndSwap(old, int64(i)); old = c.first.Load() {
	}
}

// CauseSeen is one cause among a campaign's violations (causeOf): what
// the violating op does, or its attack class (Class), how many
// violations it made, the lowest check with one, and whether a finding
// of it was kept.
type CauseSeen struct {
	Cause      string
	Class      bool
	Violations int64
	FirstCheck int
	Kept       bool
	Invariants []oracle.ID // those its violations are of, in the catalogue's order
}

// seenCauses lists the causes offered, by first check and then name:
// the same list whichever worker offered first; the causes past
// MaxCauses come last, counted together as OtherCauses.
func (k *collector) seenCauses() []CauseSeen {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []CauseSeen
	listed := map[string]bool{}
	k.seen.Range(func(key, v any) bool {
		cause := key.(string)
		listed[cause] = true
		out = append(out, k.causeSeen(cause, v.(*causeCount), k.keptAny(func(c string) bool { return c == cause })))
		return true
	})
	slices.SortFunc(out, func(a, b CauseSeen) int {
		return cmp.Or(cmp.Compare(a.FirstCheck, b.FirstCheck), strings.Compare(a.Cause, b.Cause))
	})
	if k.others.violations.Load() > 0 {
		out = append(out, k.causeSeen(OtherCauses, k.others, k.keptAny(func(c string) bool { return !listed[c] })))
	}
	return out
}

// keptAny reports whether a finding of a cause that is among was
// accepted, of any invariant. Call with mu held.
func (k *collector) keptAny(among func(cause string) bool) bool {
	for id := range k.byCause {
		for cause, n := range k.byCause[id] {
			if n > 0 && among(cause) {
				return true
			}
		}
	}
	return false
}

// causeSeen is the listing of cause, counted by c.
func (k *collector) causeSeen(cause string, c *causeCount, kept bool) CauseSeen {
	var ids []oracle.ID
	bits := c.invariants.Load()
	for _, inv := range oracle.Invariants() {
		if bits&(1<<inv.ID) != 0 {
			ids = append(ids, inv.ID)
		}
	}
	return CauseSeen{Cause: cause, Class: c.class, Violations: c.violations.Load(), FirstCheck: int(c.first.Load()), Kept: kept, Invariants: ids}
}

// wants reports whether r's invariant and cause still have a slot, for a
// look without the lock.
func (k *collector) wants(r raw) bool {
	if k.full[r.f.Invariant].Load() {
		return false
	}
	cause, _ := causeOf(r)
	_, full := k.causeFull.Load(fullKey(r.f.Invariant, cause))
	return !full
}

// fullKey names an invariant and a cause in causeFull.
func fullKey(id oracle.ID, cause string) string { return id.String() + "\x00" + cause }

// room returns the raw findings of p (sorted by check) that can still be
// accepted for invariant id, in order: the earliest, as many as the slots
// left for the invariant and for each cause allow. A finding left out
// now never comes back: what took its place came before it.
func (k *collector) room(id oracle.ID, p []raw) []raw {
	taken := map[string]int{}
	kept := p[:0]
	for _, r := range p {
		cause, most := causeOf(r)
		if k.accepted[id]+len(kept) < k.most && k.byCause[id][cause]+taken[cause] < most {
			taken[cause]++
			kept = append(kept, r)
		}
	}
	clear(p[len(kept):]) // let the scenarios go
	return kept
}

// causeOf is what the op r's finding is at is about, and how many
// findings of one invariant may share it: for a total finding, how the
// sandbox failed (failureCause); for a fetch, what a guard that lets it
// through gets wrong (fetchCause: it fails the same way at every such op,
// whatever attack drew it), or that it looked the host up before refusing
// it (lookupCause), or that it went to a host of its own choosing
// (ownHostCause); for a file op whose path leaves its roots or
// passes through a link, how (pathCause); for any other op, its attack
// class; for the run as a whole, the unlabelled class.
func causeOf(r raw) (string, int) {
	s := r.f.Step
	if s <= 0 || s > len(r.sc.Steps) {
		return attack.Unlabelled.String(), MaxPerClass
	}
	if r.kept {
		return keptCause, MaxPerCause
	}
	st := r.sc.Steps[s-1]
	if r.f.Invariant == oracle.Total {
		return failureCause(st.Op, r.f.Detail), MaxPerCause
	}
	if st.Op.Kind == core.OpFetch && len(st.Op.Args) == 2 {
		if c := lookupCause(st.Op, r.f); c != "" {
			return c, MaxPerCause
		}
		if c := ownHostCause(r.sc, s-1, r.f); c != "" {
			return c, MaxPerCause
		}
		return fetchCause(r.sc, s-1), MaxPerCause
	}
	if c := pathCause(st.Op, r.sc); c != "" {
		return c, MaxPerCause
	}
	if c := contentCause(st.Op, r.f); c != "" {
		return c, MaxPerCause
	}
	return st.Class.String(), MaxPerClass
}

// KeptCause is the cause a campaign keeps a finding for, when it is more
// than its attack class (a fetch's host, a file op's path: how it leaves
// its roots), else "": minimizing it keeps that cause
// (finding.Pipeline.Cause), or the one kept for a link's escape would be
// written as whatever the invariant shrinks to, and the files repeat one
// defect.
func KeptCause(sc *scenario.Scenario, f oracle.Finding) string {
	cause, most := causeOf(raw{sc: sc, f: f})
	if most != MaxPerCause || f.Invariant == oracle.Total {
		// A failure's words may change as its scenario shrinks (a
		// server's stderr quoted in them): it is minimized as any.
		return ""
	}
	return cause
}

// finish marks check i finished, moves the watermark, and hands the raw
// findings it passed to the sink, in check order.
func (k *collector) finish(i int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return
	}
	from := k.finished.watermark
	mark := k.finished.add(i)
	k.countCauses(from, mark)
	for _, r := range k.takeFinal(mark) {
		k.sink(r)
	}
}

// causeNote is a violation of a check, to be counted under its cause.
type causeNote struct {
	cause string
	class bool // the cause is the op's attack class (causeOf)
	id    oracle.ID
}

// countCauses counts the violations of the checks the watermark passed,
// moving from from to mark, in check order, under their causes: the first
// MaxCauses causes listed are then those of the lowest checks, whatever
// the check that finished first. The caller holds mu.
func (k *collector) countCauses(from, mark int) {
	var below []int
	if mark-from <= len(k.notes) {
		for i := from; i < mark; i++ {
			if _, ok := k.notes[i]; ok {
				below = append(below, i)
			}
		}
	} else { // a long stretch (flush's): the few checks waiting, sorted
		for i := range k.notes {
			if i < mark {
				below = append(below, i)
			}
		}
		slices.Sort(below)
	}
	for _, i := range below {
		for _, n := range k.notes[i] {
			k.causeCounter(n.cause, n.class).add(i, n.id)
		}
		delete(k.notes, i)
	}
}

// countedNow is the count cause's violations go to at once, whatever the
// check: the cause's own where it is listed already, the others' where
// MaxCauses are (every cause listed later would be of a later check); nil
// for a cause new while there is room, counted in check order
// (countCauses).
func (k *collector) countedNow(cause string) *causeCount {
	if c, ok := k.seen.Load(cause); ok {
		return c.(*causeCount)
	}
	k.seenMu.Lock()
	defer k.seenMu.Unlock()
	if c, ok := k.seen.Load(cause); ok {
		return c.(*causeCount)
	}
	if k.distinct >= MaxCauses {
		return k.others
	}
	return nil
}

// flush hands every pending raw finding to the sink and closes the
// collector: the campaign is over, and every check it started has
// finished or was given up on (a check given up on was not found to fail).
func (k *collector) flush() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.countCauses(k.finished.watermark, 1<<62)
	for _, r := range k.takeFinal(1 << 62) {
		k.sink(r)
	}
	k.closed = true
	k.over.Store(true)
}

// takeFinal removes and returns the pending findings below mark, in check
// order then invariant order. Under StopAtFirst only the first of the
// lowest check with a finding is taken, once: the rest are dropped, so
// that the campaign writes one finding. Hangs still to be judged again
// (awaitsConfirm) at or below that check are taken too: the sink keeps
// the first that counts, and one that does not counts nothing.
func (k *collector) takeFinal(mark int) []raw {
	var out []raw
	for id := range k.pending {
		p := k.pending[id]
		n := 0
		for n < len(p) && p[n].check < mark {
			n++
		}
		for _, r := range p[:n] {
			if k.first && !k.mayBeFirst(r) {
				continue
			}
			out = append(out, r)
			k.accepted[id]++
			cause, most := causeOf(r)
			k.byCause[id][cause]++
			if k.byCause[id][cause] >= most {
				k.causeFull.Store(fullKey(oracle.ID(id), cause), true)
			}
		}
		k.pending[id] = slices.Delete(p, 0, n)
		if k.accepted[id] >= k.most {
			k.full[id].Store(true)
		}
	}
	slices.SortStableFunc(out, func(a, b raw) int { return a.check - b.check })
	if k.first {
		out = k.firstOnly(out)
	}
	return out
}

// mayBeFirst reports whether r may be the first finding of a StopAtFirst
// campaign: it is of the lowest check with a finding, or a hang still to
// be judged again at or below it.
func (k *collector) mayBeFirst(r raw) bool {
	bad := k.firstBad.Load()
	return int64(r.check) == bad || k.awaitsConfirm(r.f) && int64(r.check) < bad
}

// firstOnly keeps, of final findings, the first that needs no second
// judgement if none was handed to the sink yet, and every hang still to
// be judged again (StopAtFirst).
func (k *collector) firstOnly(final []raw) []raw {
	kept := final[:0]
	for _, r := range final {
		switch {
		case k.awaitsConfirm(r.f):
			kept = append(kept, r)
		case !k.handed:
			k.handed = true
			kept = append(kept, r)
		}
	}
	clear(final[len(kept):])
	return kept
}

// finishedSet is the set of finished checks as a campaign needs it: the
// watermark, below which every check has finished, and a bit for each
// check at or above it (finished ones are 1). Every check marks itself
// once, so a map of them cost an insert and a delete a check; the bits
// cost a word's update, and memory in proportion to how far the checks
// finished ahead of the watermark run (one bit a check), not to how many
// ran. The zero finishedSet has nothing finished.
type finishedSet struct {
	watermark int
	base      int      // the check of words[0]'s bit 0: a multiple of 64, at most watermark
	words     []uint64 // bit j of words[w]: check base+64w+j has finished
}

// add marks check i, at or above the watermark, finished and returns the
// watermark, moved past every check finished without a gap.
func (s *finishedSet) add(i int) int {
	off := i - s.base
	for off>>6 >= len(s.words) {
		s.words = append(s.words, 0)
	}
	s.words[off>>6] |= 1 << (off & 63)
	for {
		off := s.watermark - s.base
		if off>>6 >= len(s.words) {
			break
		}
		run := bits.TrailingZeros64(^(s.words[off>>6] >> (off & 63))) // finished checks from the watermark on, in this word
		s.watermark += run
		if (off&63)+run < 64 {
			break // a check in this word has not finished
		}
	}
	if passed := (s.watermark - s.base) >> 6; passed > 0 { // words wholly below the watermark: drop them
		s.words = s.words[:copy(s.words, s.words[passed:])] // append zeroes what it reuses
		s.base += passed << 6
	}
	return s.watermark
}
