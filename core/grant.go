package core

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
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
	hosts, tools    []string
	budgets         Budgets
	// readRoots and writeRoots are fsRead and fsWrite in canonical form,
	// as the allow-list judges them (SPEC §4): cleaned once, here.
	readRoots, writeRoots []string
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
	if err := checkGrant(s); err != nil {
		return Grant{}, err
	}
	return Grant{&grantData{
		fsRead:     slices.Clone(s.FSRead),
		fsWrite:    slices.Clone(s.FSWrite),
		hosts:      slices.Clone(s.NetHosts),
		tools:      slices.Clone(s.Tools),
		budgets:    s.Budgets,
		readRoots:  canonicalAll(s.FSRead),
		writeRoots: canonicalAll(s.FSWrite),
	}}, nil
}

// canonicalAll is each of roots in canonical form.
func canonicalAll(roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = spec.Canonical(r)
	}
	return out
}

// checkGrant returns the error NewGrant(s) returns, nil when s describes a
// grant.
func checkGrant(s GrantSpec) error {
	if b := s.Budgets; b.MaxOps < 0 || b.MaxWall < 0 || b.MaxOutputBytes < 0 {
		return budgetError(b)
	}
	for _, l := range []struct {
		what    string
		items   []string
		problem func(string) string
	}{
		{"fs_read root", s.FSRead, rootProblem},
		{"fs_write root", s.FSWrite, rootProblem},
		{"net host", s.NetHosts, nameProblem},
		{"tool", s.Tools, nameProblem},
	} {
		for _, item := range l.items {
			if why := l.problem(item); why != "" {
				return itemError(l.what, item, why)
			}
		}
	}
	return nil
}

// budgetError is checkGrant's error for the first negative budget of b.
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

// itemError is checkGrant's error for an item of the list what.
func itemError(what, item, why string) error {
	return fmt.Errorf("%w: %s %q %s", ErrInvalidGrant, what, item, why)
}

func rootProblem(r string) string {
	switch {
	case !strings.HasPrefix(r, "/"):
		return "is not absolute"
	case spec.HasTraversal(r):
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
	for _, c := range n {
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
// given: copies of its four lists, an empty list as nil.
func (g Grant) Spec() GrantSpec {
	d := g.data()
	return GrantSpec{FSRead: copyList(d.fsRead), FSWrite: copyList(d.fsWrite),
		NetHosts: copyList(d.hosts), Tools: copyList(d.tools), Budgets: d.budgets}
}

// copyList returns a copy of l, nil when l is empty.
func copyList(l []string) []string { return append([]string(nil), l...) }

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

// MayRead reports whether the grant lets an op read p: no ".." segment
// (segments split at '/' and '\'), and the canonical form of p under an
// fs_read root (SPEC §4).
func (g Grant) MayRead(p string) bool { return g.data().mayRead(p) }

// MayWrite reports whether the grant lets an op write p.
func (g Grant) MayWrite(p string) bool { return g.data().mayWrite(p) }

// MayFetch reports whether host is granted, byte for byte.
func (g Grant) MayFetch(host string) bool { return slices.Contains(g.data().hosts, host) }

// MayCall reports whether the tool name is granted, byte for byte.
func (g Grant) MayCall(name string) bool { return slices.Contains(g.data().tools, name) }

func (d *grantData) mayRead(p string) bool {
	return !spec.HasTraversal(p) && spec.UnderRoots(spec.Canonical(p), d.readRoots)
}

func (d *grantData) mayWrite(p string) bool {
	return !spec.HasTraversal(p) && spec.UnderRoots(spec.Canonical(p), d.writeRoots)
}
