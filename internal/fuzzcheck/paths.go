package fuzzcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// CheckPaths is FuzzPaths' body: it checks the SPEC §4 helpers of core —
// Canonical and UnderAllowlist — against the formulations below, written
// independently from the SPEC's words (core cleans with path.Clean and
// compares prefixes; these compare lists of elements). roots is a newline-separated list of allow-list
// roots. CheckPaths returns an error naming the first disagreement, nil when
// they all agree.
func CheckPaths(p, roots string) error {
	return checkPaths(p, roots, spec.Canonical, spec.UnderAllowlist)
}

// checkPaths is CheckPaths of the helpers canonical and under, which a
// test gives wrong on purpose.
func checkPaths(p, roots string, canonical func(string) string, under func(string, []string) bool) error {
	if got, want := canonical(p), slowClean(p); got != want {
		return fmt.Errorf("Canonical(%q) = %q, the SPEC's formulation says %q", p, got, want)
	}
	rs := splitRoots(roots)
	if got, want := under(p, rs), slowUnder(p, rs); got != want {
		return fmt.Errorf("UnderAllowlist(%q, %q) = %v, the SPEC's formulation says %v", p, rs, got, want)
	}
	return nil
}

// slowClean is path.Clean's lexical rules applied to a list of elements:
// drop empty and "." elements; let ".." remove the element before it, or
// vanish at the root of a rooted path, or stay when it has nothing to
// remove in an unrooted one; join with "/", rooted as p was; an empty
// result is ".".
func slowClean(p string) string {
	rooted := strings.HasPrefix(p, "/")
	var out []string
	for _, e := range strings.Split(p, "/") {
		switch {
		case e == "" || e == ".":
		case e != "..":
			out = append(out, e)
		case len(out) > 0 && out[len(out)-1] != "..":
			out = out[:len(out)-1]
		case !rooted:
			out = append(out, "..")
		}
	}
	s := strings.Join(out, "/")
	switch {
	case rooted:
		return "/" + s
	case s == "":
		return "."
	}
	return s
}

// slowUnder is SPEC §4's UnderAllowlist as a comparison of elements: the
// cleaned path lies under a cleaned root when the root's elements are the
// first elements of the path's ("/" holds every rooted path).
func slowUnder(p string, roots []string) bool {
	c := slowClean(p)
	for _, r := range roots {
		r = slowClean(r)
		if r == "/" {
			if strings.HasPrefix(c, "/") {
				return true
			}
			continue
		}
		ce, re := strings.Split(c, "/"), strings.Split(r, "/")
		if len(ce) >= len(re) && slices.Equal(ce[:len(re)], re) {
			return true
		}
	}
	return false
}

// splitRoots is FuzzPaths' root list: roots separated by newlines.
func splitRoots(roots string) []string { return strings.Split(roots, "\n") }
