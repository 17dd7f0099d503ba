package core

import (
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/textscan"
)

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
	return resolveLinks(&t.links, &t.linkLens, nil, p)
}

// lengthSet is a set of string lengths, those from 255 on counted as one:
// the lengths of a world's link paths. A path whose length is not in it is
// no link, which a walk learns without looking it up (most prefixes of
// most paths).
type lengthSet [4]uint64

func (s *lengthSet) add(n int) { n = min(n, 255); s[n>>6] |= 1 << (n & 63) }

func (s *lengthSet) has(n int) bool { n = min(n, 255); return s[n>>6]&(1<<(n&63)) != 0 }

// linkMemo is what the walks of one world have learned about its links:
// for a link (by its index in the template's table) that a walk from "/"
// followed to the end of its target, the path that target led to and how
// many links it took, itself included. A world's links never change (a
// write makes files, never links), so what a walk learned holds for every
// later walk of the world; and a link reached again needs no walk. Without
// it a chain of 40 links costs 40 lookups every time a path goes through
// it, and a loop 41, three times an op under the oracle (the run, the
// replay, and the model's own walk). The zero linkMemo is empty.
type linkMemo struct {
	links []linkFact // by link index; empty until the world's first walk meets a link
	text  []byte     // the paths links resolve to, one after another: linkFact.at and .end index it
}

// linkFact is what is known of one link.
type linkFact struct {
	state   linkState
	hops    int32 // known: the links its resolution follows, itself included (at most MaxLinks)
	at, end int32 // known: its resolution is text[at:end] ("" for "/")
}

type linkState uint8

const (
	linkUnknown linkState = iota
	linkWalking           // its target is being walked: a walk that meets it again is going round a loop
	linkKnown             // resolved: hops and text hold the answer
	linkLoops             // its resolution follows more than MaxLinks links
)

// reset empties m for a world with n links, keeping its memory.
func (m *linkMemo) reset(n int) {
	m.links = slices.Grow(m.links[:0], n)[:n]
	clear(m.links)
	m.text = m.text[:0]
}

// mark says that the target of link, followed when hops links had been,
// is walked once the walk has nothing left to walk above depth pieces of
// its later stack.
type mark struct{ link, hops, depth int32 }

// resolveLinks walks p one component at a time. buf holds the path
// resolved so far and offs where each of its components starts (its
// separator included), so ".." truncates and a link's directory is a
// prefix; every prefix of buf is known to be no link, so the answer is a
// fixed point of the walk (resolving it again follows nothing). The buffers
// start on the stack and the links are asked with string(buf), which Go
// does not copy (linkIndex): a walk that meets no link allocates only its
// answer.
//
// With a memo (nil for none), a walk from "/" that follows a link to the
// end of its target records where it led and how many links that took,
// and a walk that meets a recorded link jumps there. That is exact: every
// prefix of buf is no link, so what follows from a link depends only on
// its path, never on how the walk got there; the count of links followed
// only grows, so the walk passes MaxLinks inside the link's target exactly
// when the links before it plus the link's own count do. A walk that meets
// a link whose target it is still walking is in the same state as when it
// first met it, with more still to walk: it would go round forever, so it
// is a loop whatever the count, and so is every link it is inside.
func resolveLinks(links *table[string, string], lens *lengthSet, memo *linkMemo, p string) (string, bool) {
	if meetsNoLink(links, lens, p) {
		return p, true
	}
	return walkLinks(links, lens, memo, p)
}

// meetsNoLink reports whether resolving p would meet no link: p is
// canonical, so a walk would meet exactly its prefixes, and none is a link.
// Then p resolves to itself.
func meetsNoLink(links *table[string, string], lens *lengthSet, p string) bool {
	return textscan.IsClean(p) && !linkOnPrefix(links, lens, p)
}

// walkLinks is resolveLinks for a p that may meet a link: the walk.
func walkLinks(links *table[string, string], lens *lengthSet, memo *linkMemo, p string) (string, bool) {
	var (
		bufArr   [256]byte
		offArr   [32]int
		laterArr [8]string
		markArr  [MaxLinks]mark // one a link followed: never more
		hops     int
	)
	buf, offs := bufArr[:0], offArr[:0]
	// later holds what is left of the paths links interrupted, the latest
	// last: a link's target is walked, then the rest of the path it was
	// met in, as if they were joined, without joining them. With a memo,
	// marks says whose targets end where.
	later, marks := laterArr[:0], markArr[:0]
	abs := strings.HasPrefix(p, "/")
	if memo != nil && len(memo.links) != links.len() { // a world renewed: its memo is empty
		memo.reset(links.len())
	}
	for rest := p; rest != "" || len(later) > 0 || len(marks) > 0; {
		if rest == "" {
			if n := len(marks) - 1; n >= 0 && int(marks[n].depth) == len(later) {
				memo.learn(marks[n], buf, hops) // the link's target is walked: buf is where it led
				marks = marks[:n]
				continue
			}
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
		i := linkIndex(links, buf)
		if i < 0 {
			continue
		}
		remember := memo != nil && abs // a relative walk's buf may hold ".." and depends on where it started
		if remember {
			switch f := &memo.links[i]; f.state {
			case linkKnown:
				if hops += int(f.hops); hops > MaxLinks {
					memo.forget(marks)
					return "", false
				}
				buf, offs = appendComponents(buf[:0], offs[:0], memo.text[f.at:f.end])
				continue
			case linkLoops, linkWalking: // a link inside one that loops loops too
				memo.loops(marks)
				return "", false
			}
		}
		if hops++; hops > MaxLinks {
			memo.forget(marks)
			return "", false
		}
		target := links.pairs[i].v
		last := len(offs) - 1
		buf, offs = buf[:offs[last]], offs[:last] // the link's directory
		if strings.HasPrefix(target, "/") {
			buf, offs, abs = buf[:0], offs[:0], true
		}
		if rest != "" {
			later = append(later, rest)
		}
		if remember {
			memo.links[i].state = linkWalking
			marks = append(marks, mark{link: int32(i), hops: int32(hops - 1), depth: int32(len(later))})
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

// linkOnPrefix reports whether p, or a path made of its first components,
// is a link: what a walk of a canonical p (absolute, without an empty, "."
// or ".." component) would meet, in the same order, without building its
// buffer.
func linkOnPrefix(links *table[string, string], lens *lengthSet, p string) bool {
	for i := 1; i <= len(p); i++ {
		if j := strings.IndexByte(p[i:], '/'); j >= 0 {
			i += j
		} else {
			i = len(p)
		}
		if lens.has(i) && linkIndex(links, p[:i]) >= 0 {
			return true
		}
	}
	return false
}

// appendComponents appends the absolute resolved path r ("" for "/") to
// buf and where each of its components starts to offs.
func appendComponents(buf []byte, offs []int, r []byte) ([]byte, []int) {
	for i, c := range r {
		if c == '/' {
			offs = append(offs, len(buf)+i)
		}
	}
	return append(buf, r...), offs
}

// learn records that the link of k resolves to r, the walk having
// followed hops links by the end of its target.
func (m *linkMemo) learn(k mark, r []byte, hops int) {
	at := len(m.text)
	m.text = append(m.text, r...)
	m.links[k.link] = linkFact{state: linkKnown, hops: int32(hops) - k.hops, at: int32(at), end: int32(len(m.text))}
}

// loops records that every link whose target a walk was inside (marks)
// loops: the walk met one of them again, or a link known to loop.
func (m *linkMemo) loops(marks []mark) {
	for _, k := range marks {
		m.links[k.link] = linkFact{state: linkLoops}
	}
}

// forget undoes the marks of a walk that stopped past MaxLinks inside
// their targets: the links before them count towards that, so whether
// each of those links loops on its own is not known. (m may be nil: a
// walk without a memo makes no marks.)
func (m *linkMemo) forget(marks []mark) {
	for _, k := range marks {
		m.links[k.link].state = linkUnknown
	}
}
