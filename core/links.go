package core

import "strings"

// MaxLinks is how many links one resolution may follow (SPEC §13, Linux's
// MAXSYMLINKS): following the 41st is a loop.
const MaxLinks = 40

// Resolve returns p resolved through the template's links, as VFS.Realpath
// answers it (SPEC §13), and false when resolving would follow more than
// MaxLinks links. Every component is resolved, the last one included,
// whether or not anything is stored there; a component that is a link is
// replaced by its target (an absolute target restarting from "/", a
// relative one from the link's directory) and resolution goes on. A ".."
// leaves the directory reached so far, links already followed, as a real
// file system's does. In a world without links it returns Canonical(p).
func (t *WorldTemplate) Resolve(p string) (string, bool) {
	if t.links.len() == 0 {
		return Canonical(p), true
	}
	return resolveLinks(&t.links, &t.linkLens, p)
}

// lengthSet is a set of string lengths, those from 255 on counted as one:
// the lengths of a world's link paths. A path whose length is not in it is
// no link, which a walk learns without looking it up (most prefixes of
// most paths).
type lengthSet [4]uint64

func (s *lengthSet) add(n int) { n = min(n, 255); s[n>>6] |= 1 << (n & 63) }

func (s *lengthSet) has(n int) bool { n = min(n, 255); return s[n>>6]&(1<<(n&63)) != 0 }

// resolveLinks walks p one component at a time. buf holds the path
// resolved so far and offs where each of its components starts (its
// separator included), so ".." truncates and a link's directory is a
// prefix; every prefix of buf is known to be no link, so the answer is a
// fixed point of the walk (resolving it again follows nothing). The buffers
// start on the stack and the links are asked with string(buf), which Go
// does not copy (linkAt): a walk that meets no link allocates only its
// answer.
func resolveLinks(links *table[string, string], lens *lengthSet, p string) (string, bool) {
	var (
		bufArr   [256]byte
		offArr   [32]int
		laterArr [8]string
		hops     int
	)
	buf, offs := bufArr[:0], offArr[:0]
	// later holds what is left of the paths links interrupted, the latest
	// last: a link's target is walked, then the rest of the path it was
	// met in, as if they were joined, without joining them.
	later := laterArr[:0]
	abs := strings.HasPrefix(p, "/")
	for rest := p; rest != "" || len(later) > 0; {
		if rest == "" {
			rest, later = later[len(later)-1], later[:len(later)-1]
			continue
		}
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			if n := len(offs); n > 0 && strings.TrimPrefix(string(buf[offs[n-1]:]), "/") != ".." {
				buf, offs = buf[:offs[n-1]], offs[:n-1]
				continue
			}
			if abs {
				continue // the root's parent is the root
			}
			// A relative path may climb above its start, as Clean keeps it.
		}
		offs = append(offs, len(buf))
		if abs || len(offs) > 1 {
			buf = append(buf, '/')
		}
		buf = append(buf, name...)
		if name == ".." {
			continue
		}
		if !lens.has(len(buf)) {
			continue // no link has a path this long
		}
		target, isLink := linkAt(links, buf)
		if !isLink {
			continue
		}
		if hops++; hops > MaxLinks {
			return "", false
		}
		last := len(offs) - 1
		buf, offs = buf[:offs[last]], offs[:last] // the link's directory
		if strings.HasPrefix(target, "/") {
			buf, offs, abs = buf[:0], offs[:0], true
		}
		if rest != "" {
			later = append(later, rest)
		}
		rest = target
	}
	switch {
	case len(buf) > 0 && string(buf) == p:
		return p, true // p was clean and met no link: no copy
	case len(buf) > 0:
		return string(buf), true
	case abs:
		return "/", true
	}
	return ".", true
}
