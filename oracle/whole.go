package oracle

import (
	"fmt"
	"slices"

	"github.com/sbxfuzz/sbxfuzz/attack"
	"github.com/sbxfuzz/sbxfuzz/core"
)

// grantSnapshot is a deep copy of what a sandbox's GrantView read when the
// run began.
type grantSnapshot struct {
	fsRead, fsWrite, hosts, tools []string
	budgets                       core.Budgets
	// handle is the grant itself when the sandbox handed out a core.Grant:
	// an immutable value whose accessors hand out copies (core's tests prove
	// both), so the same handle after the run is the same grant, and
	// nothing a caller writes into can reach it. The lists are read from it
	// only if the sandbox hands out something else after the run.
	handle core.Grant
}

func snapshotGrant(sb core.Sandbox) grantSnapshot {
	v := sb.Grant()
	if g, ok := v.(core.Grant); ok && g != (core.Grant{}) {
		return grantSnapshot{handle: g}
	}
	return snapshotOf(v)
}

// snapshotOf reads v's lists into copies of its own, whatever v hands out.
func snapshotOf(v core.GrantView) grantSnapshot {
	return grantSnapshot{fsRead: copyList(v.FSRead()), fsWrite: copyList(v.FSWrite()),
		hosts: copyList(v.NetHosts()), tools: copyList(v.Tools()), budgets: v.Budgets()}
}

// copyList returns a copy of l, nil when l is empty.
func copyList(l []string) []string { return append([]string(nil), l...) }

// widen does to every value the view hands out what a hostile caller would:
// overwrite each root with "/" and each name with a wildcard-looking one,
// so that a view that shares its backing arrays reads differently after.
func widen(v core.GrantView) {
	for _, list := range [][]string{v.FSRead(), v.FSWrite()} {
		for i := range list {
			list[i] = "/"
		}
	}
	for _, list := range [][]string{v.NetHosts(), v.Tools()} {
		for i := range list {
			list[i] = "widened-by-caller"
		}
	}
}

// checkGrant is grant-immutable: scribble on everything the grant handed
// out, then ask the sandbox for its grant again and read that. (A sandbox
// may hand out a fresh view each time, holding copies: scribbling on one
// must not show in the next.) The second reading is only compared, so it is
// not copied.
func (r *watchedRun) checkGrant(classes classSet) {
	if r.dead {
		return
	}
	classes.checked(r.cov, GrantImmutable)
	if h := r.snap.handle; h != (core.Grant{}) {
		if now, ok := r.sb.Grant().(core.Grant); ok && now == h {
			return // the same immutable grant: it reads the same, and hands out only copies
		}
		r.snap = snapshotOf(h) // something else now: compare as for any view
	}
	widen(r.sb.Grant())
	now := r.sb.Grant()
	for _, f := range []struct {
		name        string
		before, now []string
	}{
		{"fs_read roots", r.snap.fsRead, now.FSRead()},
		{"fs_write roots", r.snap.fsWrite, now.FSWrite()},
		{"net hosts", r.snap.hosts, now.NetHosts()},
		{"tools", r.snap.tools, now.Tools()},
	} {
		if !sameEntries(f.before, f.now) {
			r.wholeViolation(GrantImmutable, classes, fmt.Sprintf("the grant's %s read %s before the run and %s after a caller wrote into the slice it was handed: %s",
				f.name, quoteList(f.before), quoteList(f.now), changedAuthority(f.before, f.now)))
			return
		}
	}
	if b := now.Budgets(); b != r.snap.budgets {
		r.wholeViolation(GrantImmutable, classes, fmt.Sprintf("the grant's budgets read %+v before the run and %+v after", r.snap.budgets, b))
	}
}

// sameEntries reports whether two readings of a grant's list hold the same
// entries, as many times each, in any order: a view that builds its lists
// from a map each time it is asked reads the same authority in another
// order.
func sameEntries(a, b []string) bool {
	if slices.Equal(a, b) {
		return true
	}
	return len(a) == len(b) && slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// changedAuthority says how a list read after differs from before: an entry
// it did not hold is authority widened; else some went, or were
// rewritten to entries it held already.
func changedAuthority(before, after []string) string {
	for _, e := range after {
		if !slices.Contains(before, e) {
			return "authority widened"
		}
	}
	return "authority changed"
}

func (r *watchedRun) wholeViolation(id ID, classes classSet, detail string) {
	classes.violated(r.cov, id)
	if !r.reported[id] {
		r.reported[id] = true
		r.found(Finding{Invariant: id, Detail: clipDetail(detail)})
	}
}

// classSet is the set of attack classes a scenario's ops carry: a whole-run
// check counts once for each.
type classSet [attack.NumClasses]bool

// checked counts one check of invariant id in each class of s.
func (s *classSet) checked(cov *Coverage, id ID) {
	for c, in := range s {
		if in {
			cov.Classes[c].Checked[id]++
		}
	}
}

// violated counts one violation of invariant id in each class of s.
func (s *classSet) violated(cov *Coverage, id ID) {
	for c, in := range s {
		if in {
			cov.Classes[c].Violations[id]++
		}
	}
}
