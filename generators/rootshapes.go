package generators

import (
	"strings"

	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Root shapes that real servers get wrong: a root that is a
// string prefix of another, and a root that is a link or lies under one.

// prefixInfos are readBases with "2" appended: a second root of which the
// first is a string prefix (/work and /work2, /srv/app and /srv/app2), so
// that a sandbox comparing raw prefixes, or stopping at the first root a
// path starts with, meets a path of one root that begins with the other.
var prefixInfos = rootInfos("2")

// A rootLinkShape is a granted root reached through a link: the link (at
// the root itself, or at its parent) and the directory where the root's
// content really lies.
type rootLinkShape struct {
	link scenario.Link
	real rootInfo
}

// linkedRootsDir holds the directories roots that are links lead to: it is
// outside every root the generators grant, but for "/" and the near miss
// that grants it.
const linkedRootsDir = "/mnt"

// atRoot and atParent are, per readBase, the root made a link to
// /mnt/real + base, and the root's parent made a link to /mnt/up + parent
// (for /work, whose parent is "/", the root itself again: "/" is never a
// link).
var atRoot, atParent = rootLinkShapes()

func rootLinkShapes() (at, above []rootLinkShape) {
	for _, b := range readBases {
		real := linkedRootsDir + "/real" + b
		at = append(at, rootLinkShape{scenario.Link{Path: b, Target: real}, newRootInfo(real)})
		k := strings.LastIndexByte(b, '/')
		if k == 0 {
			above = append(above, at[len(at)-1])
			continue
		}
		up := linkedRootsDir + "/up" + b[:k]
		above = append(above, rootLinkShape{scenario.Link{Path: b[:k], Target: up}, newRootInfo(up + b[k:])})
	}
	return at, above
}

// linkedRoot grants readBases[i] for reads and writes alike (the form a
// server with one list of directories can be given), where that root, or
// its parent, is a link to a directory outside it: SPEC §13 holds the
// resolved path to the roots as written, so everything under such a root is
// denied, and a sandbox that resolves its roots first, or opens them
// through the link, reaches the real directory. One time in three the
// real directory lies under a second root, /mnt, and the same ops are
// allowed. The root's content lives in the real directory, which is where
// the world's other links are planted.
func (b *builder) linkedRoot(i int) {
	src := b.src
	s := &atRoot[i]
	if oneIn(src, 2) {
		s = &atParent[i]
	}
	b.rootLink = &s.link
	if oneIn(src, 3) {
		b.g.FSRead = b.list(b.rootSpelling(&readInfos[i]), linkedRootsDir)
	} else {
		b.g.FSRead = b.list(b.rootSpelling(&readInfos[i]))
	}
	b.readHost = &s.real
	b.rootFiles(b.readHost)
}
