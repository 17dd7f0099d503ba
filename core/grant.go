package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sbxfuzz/sbxfuzz/internal/lists"
	"github.com/sbxfuzz/sbxfuzz/internal/textscan"
)

// Budgets are the three hard limits of a grant. A budget of 0 allows
// nothing: max_ops 0 halts the first op; it never means "unlimited".
type Budgets struct {
	MaxOps         int64 // ops a sandbox may run
	MaxWall        int64 // clock ticks since the sandbox was built
	MaxOutputBytes int64 // bytes of data all results may return in total
}

// GrantSpec is the input to NewGrant: plain data, checked and copied by the
// constructor. Changing a GrantSpec after NewGrant changes nothing.
type GrantSpec struct {
	FSRead   []string // roots ops may read under
	FSWrite  []string // roots ops may write under
	NetHosts []string // hosts ops may fetch from, matched byte for byte
	Tools    []string // tools ops may call, matched byte for byte
	Budgets
}

// ErrInvalidGrant is the sentinel every NewGrant error unwraps to.
var ErrInvalidGrant = errors.New("invalid grant")

// Grant is an immutable authority (SPEC §3): allow-lists and budgets, checked
// once at construction. It is a handle on data nobody can reach: its
// accessors return copies, so nothing a caller does to a value it was
// handed can widen it, and copying a Grant copies one pointer. The zero
// Grant grants nothing and has budgets of 0. A Grant is safe for concurrent
// use.
type Grant struct{ d *grantData }

type grantData struct {
	fsRead, fsWrite []string
	readRoots       []root
	writeRoots      []root
	hosts, tools    []string
	budgets         Budgets
}

// nothing is what the zero Grant grants.
var nothing grantData

func (g Grant) data() *grantData {
	if g.d == nil {
		return &nothing
	}
	return g.d
}

// GrantView is what a sandbox shows of the authority it enforces. Grant
// implements it with copies; a sandbox that hands out its internals through
// it is leaky, and the oracle's grant-immutable check catches that.
type GrantView interface {
	FSRead() []string
	FSWrite() []string
	NetHosts() []string
	Tools() []string
	Budgets() Budgets
}

// NewGrant checks s and returns the Grant it describes, or an error that
// unwraps to ErrInvalidGrant for a negative budget; a root that is not
// absolute, has a ".." segment or a NUL byte; or a host or tool name that is
// empty or has white space, a control byte, '/', '@', '?' or '#'.
func NewGrant(s GrantSpec) (Grant, error) {
	if err := CheckGrant(s); err != nil {
		return Grant{}, err
	}
	// One allocation for most grants: the data and the backing arrays of
	// its lists and roots together, in a block sized for the grant (a
	// fuzz exec builds a grant per input, and a campaign one per
	// scenario; most name a few items). Larger grants take three: the
	// data, one backing array for the four lists, and one for both root
	// lists. (A block a little larger than a grant needs costs the
	// garbage collector more bytes: hence the several sizes.)
	n, r := len(s.FSRead)+len(s.FSWrite)+len(s.NetHosts)+len(s.Tools), len(s.FSRead)+len(s.FSWrite)
	var (
		d     *grantData
		items []string
		roots []root
	)
	switch {
	case n == 0:
		d = new(grantData)
	case n == 1 && r == 0:
		b := new(grantBlockName)
		d, items = &b.d, b.items[:0]
	case n == 1:
		b := new(grantBlock1)
		d, items, roots = &b.d, b.items[:0], b.roots[:0]
	case n <= 2:
		b := new(grantBlock2)
		d, items, roots = &b.d, b.items[:0], b.roots[:0]
	case n <= 4 && r <= 2:
		b := new(grantBlock4)
		d, items, roots = &b.d, b.items[:0], b.roots[:0]
	case n <= 6 && r <= 2:
		b := new(grantBlock6)
		d, items, roots = &b.d, b.items[:0], b.roots[:0]
	default:
		d, items, roots = new(grantData), make([]string, 0, n), make([]root, 0, r)
	}
	items = append(append(append(append(items, s.FSRead...), s.FSWrite...), s.NetHosts...), s.Tools...)
	for _, l := range [2][]string{s.FSRead, s.FSWrite} {
		for _, x := range l {
			roots = append(roots, newRoot(x))
		}
	}
	// Each list is capped at its length, so that an append to one (none
	// is appended to; the accessors copy) could never write into the next
	// or into the block's spare room.
	i, j, k, n := len(s.FSRead), len(s.FSRead)+len(s.FSWrite), len(s.FSRead)+len(s.FSWrite)+len(s.NetHosts), len(items)
	*d = grantData{
		fsRead:     listAs(items[:i:i], s.FSRead),
		fsWrite:    listAs(items[i:j:j], s.FSWrite),
		readRoots:  roots[:i:i],
		writeRoots: roots[i:j:j],
		hosts:      listAs(items[j:k:k], s.NetHosts),
		tools:      listAs(items[k:n:n], s.Tools),
		budgets:    s.Budgets,
	}
	return Grant{d}, nil
}

// The blocks NewGrant allocates a grant in, by its number of items (the
// four lists together) and of roots (fs_read and fs_write): the grant's
// data and room for its lists and roots, which the data's slices point
// into. Each is about the size of the three allocations it replaces.
type (
	grantBlockName struct { // one host or tool
		d     grantData
		items [1]string
	}
	grantBlock1 struct {
		d     grantData
		items [1]string
		roots [1]root
	}
	grantBlock2 struct {
		d     grantData
		items [2]string
		roots [2]root
	}
	grantBlock4 struct {
		d     grantData
		items [4]string
		roots [2]root
	}
	grantBlock6 struct {
		d     grantData
		items [6]string
		roots [2]root
	}
)

// listAs returns c, the copy of l: nil when l is nil, and empty but not
// nil when l is empty but not nil, so that the accessors show a list given
// empty as empty, as they did when each list was cloned on its own.
func listAs(c, l []string) []string {
	switch {
	case l == nil:
		return nil
	case len(l) == 0:
		return []string{} // allocates nothing
	}
	return c
}

// CheckGrant returns the error NewGrant(s) would return, nil when it would
// build the grant, without building it: for a parser that checks a grant's
// items one at a time as it reads them.
func CheckGrant(s GrantSpec) error {
	if b := s.Budgets; b.MaxOps < 0 || b.MaxWall < 0 || b.MaxOutputBytes < 0 {
		return budgetError(b)
	}
	// A helper a list, not a loop over a table of the lists: that way the
	// compiler sees that the lists do not escape, and a caller may check a
	// spec whose lists are on its stack.
	if item, why := firstProblem(s.FSRead, true); why != "" {
		return itemError("fs_read root", item, why)
	}
	if item, why := firstProblem(s.FSWrite, true); why != "" {
		return itemError("fs_write root", item, why)
	}
	if item, why := firstProblem(s.NetHosts, false); why != "" {
		return itemError("net host", item, why)
	}
	if item, why := firstProblem(s.Tools, false); why != "" {
		return itemError("tool", item, why)
	}
	return nil
}

// firstProblem returns the first of items that is no root (roots) or no
// host or tool name, and what is wrong with it; why is "" when all are
// fine. Its calls are direct, not through a function value per item: the
// parser checks every item as it reads it and NewGrant checks them all
// again, and an indirect call an item showed in profiles.
func firstProblem(items []string, roots bool) (item, why string) {
	for _, item := range items {
		if roots {
			why = rootProblem(item)
		} else {
			why = nameProblem(item)
		}
		if why != "" {
			return item, why
		}
	}
	return "", ""
}

// budgetError is CheckGrant's error for the first negative budget of b.
func budgetError(b Budgets) error {
	for _, v := range []struct {
		name string
		n    int64
	}{{"max_ops", b.MaxOps}, {"max_wall", b.MaxWall}, {"max_output_bytes", b.MaxOutputBytes}} {
		if v.n < 0 {
			return fmt.Errorf("%w: %s is negative (%d)", ErrInvalidGrant, v.name, v.n)
		}
	}
	return nil
}

// itemError is CheckGrant's error for an item of the list what.
func itemError(what, item, why string) error {
	return fmt.Errorf("%w: %s %q %s", ErrInvalidGrant, what, item, why)
}

// MustGrant is NewGrant for tests and fixed tables: it panics on an invalid
// spec.
func MustGrant(s GrantSpec) Grant {
	g, err := NewGrant(s)
	if err != nil {
		panic(err)
	}
	return g
}

func rootProblem(r string) string {
	switch {
	case !strings.HasPrefix(r, "/"):
		return "is not absolute"
	case HasTraversal(r):
		return `has a ".." segment`
	case strings.IndexByte(r, 0) >= 0:
		return "has a NUL byte"
	}
	return ""
}

func nameProblem(n string) string {
	if n == "" {
		return "is empty"
	}
	if i := textscan.IndexNotIn(n, &plainNameByte); i >= 0 {
		return runeProblem(n[i:]) // the first byte that is not plainly allowed
	}
	return ""
}

// runeProblem is nameProblem's rune-by-rune reading of s, from the first
// byte that is not a plainly allowed ASCII one.
func runeProblem(s string) string {
	for _, c := range s {
		if why := runeNameProblem(c); why != "" {
			return why
		}
	}
	return ""
}

// runeNameProblem says what is wrong with c in a host or tool name, or "".
func runeNameProblem(c rune) string {
	switch {
	case unicode.IsSpace(c):
		return "has white space"
	case c < 0x20 || c == 0x7f:
		return "has a control byte"
	case strings.ContainsRune("/@?#", c):
		return fmt.Sprintf("has %q", c)
	}
	return ""
}

// asciiNameProblem is runeNameProblem of every ASCII byte, worked out
// once: a campaign validates a generated grant, a few dozen names, per
// scenario.
var asciiNameProblem = func() (t [utf8.RuneSelf]string) {
	for c := range t {
		t[c] = runeNameProblem(rune(c))
	}
	return t
}()

// plainNameByte holds the bytes a name may have whatever surrounds them:
// the ASCII ones asciiNameProblem finds nothing wrong with.
var plainNameByte = func() (t [256]bool) {
	for c, why := range asciiNameProblem {
		t[c] = why == ""
	}
	return t
}()

// FSRead returns a copy of the fs_read roots, as given.
func (g Grant) FSRead() []string { return slices.Clone(g.data().fsRead) }

// FSWrite returns a copy of the fs_write roots, as given.
func (g Grant) FSWrite() []string { return slices.Clone(g.data().fsWrite) }

// NetHosts returns a copy of the granted hosts.
func (g Grant) NetHosts() []string { return slices.Clone(g.data().hosts) }

// Tools returns a copy of the granted tool names.
func (g Grant) Tools() []string { return slices.Clone(g.data().tools) }

// Budgets returns the grant's budgets.
func (g Grant) Budgets() Budgets { return g.data().budgets }

// Spec returns the grant as the GrantSpec it was built from, roots as
// given: copies of its four lists, made in one allocation (for callers that
// read them all, once per scenario, like the oracle's model).
func (g Grant) Spec() GrantSpec {
	d := g.data()
	l := lists.Copy4(d.fsRead, d.fsWrite, d.hosts, d.tools)
	return GrantSpec{FSRead: l[0], FSWrite: l[1], NetHosts: l[2], Tools: l[3], Budgets: d.budgets}
}

// Matches reports whether g is the grant NewGrant(s) builds: the same
// budgets and lists, item for item, a nil list and an empty one told
// apart. It reads s and hands nothing out: for a caller that keeps the
// last grant it built and builds again only when the spec differs.
func (g Grant) Matches(s GrantSpec) bool {
	d := g.data()
	return d.budgets == s.Budgets && sameList(d.fsRead, s.FSRead) && sameList(d.fsWrite, s.FSWrite) &&
		sameList(d.hosts, s.NetHosts) && sameList(d.tools, s.Tools)
}

// sameList reports whether a grant's list is l as NewGrant copied it.
func sameList(kept, l []string) bool { return (kept == nil) == (l == nil) && slices.Equal(kept, l) }

// MayRead reports whether the grant lets an op read p: no traversal, and
// Canonical(p) under an fs_read root.
func (g Grant) MayRead(p string) bool { return g.data().mayRead(p) }

// MayWrite reports whether the grant lets an op write p.
func (g Grant) MayWrite(p string) bool { return g.data().mayWrite(p) }

// MayFetch reports whether host is granted, byte for byte.
func (g Grant) MayFetch(host string) bool { return slices.Contains(g.data().hosts, host) }

// MayCall reports whether the tool name is granted, byte for byte.
func (g Grant) MayCall(name string) bool { return slices.Contains(g.data().tools, name) }

func (d *grantData) mayRead(p string) bool {
	return !HasTraversal(p) && underAny(Canonical(p), d.readRoots)
}

func (d *grantData) mayWrite(p string) bool {
	return !HasTraversal(p) && underAny(Canonical(p), d.writeRoots)
}
