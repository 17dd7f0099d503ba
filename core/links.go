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
	if t.links == nil {
		return Canonical(p), true
	}
	return resolveLinks(t.links, p)
}

// HasLinks reports whether the world holds a symbolic link.
func (t *WorldTemplate) HasLinks() bool { return t.links != nil }

// resolveLinks walks p one component at a time. done holds the components
// resolved so far; every prefix of it is known to be no link, so the answer
// is a fixed point of the walk (resolving it again follows nothing).
func resolveLinks(links map[string]string, p string) (string, bool) {
	abs := strings.HasPrefix(p, "/")
	var (
		done []string
		cur  strings.Builder
		hops int
	)
	rest := p
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			if n := len(done); n > 0 && done[n-1] != ".." {
				done = done[:n-1]
			} else if !abs {
				done = append(done, "..") // a relative path may climb above its start, as Clean keeps it
			}
			continue
		}
		done = append(done, name)
		target, isLink := links[joinPath(&cur, abs, done)]
		if !isLink {
			continue
		}
		if hops++; hops > MaxLinks {
			return "", false
		}
		done = done[:len(done)-1] // the link's directory
		if strings.HasPrefix(target, "/") {
			done, abs = done[:0], true
		}
		if rest == "" {
			rest = target
		} else {
			rest = target + "/" + rest
		}
	}
	return joinPath(&cur, abs, done), true
}

// joinPath writes the clean path of components into b and returns it.
func joinPath(b *strings.Builder, abs bool, components []string) string {
	if len(components) == 0 {
		if abs {
			return "/"
		}
		return "."
	}
	b.Reset()
	for i, c := range components {
		if abs || i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(c)
	}
	return b.String()
}
