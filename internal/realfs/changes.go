package realfs

import "io/fs"

// ChangeKind says how an entry changed between two Observations.
type ChangeKind uint8

// The kinds of change. The zero ChangeKind is no change.
const (
	Created  ChangeKind = iota + 1 // the entry is new
	Modified                       // same type; content, target or mode differ
	Removed                        // the entry is gone
	Retyped                        // the type changed: file, link, directory or other
)

var changeNames = [...]string{"", "created", "modified", "removed", "retyped"}

// String returns "created", "modified", "removed" or "retyped".
func (k ChangeKind) String() string {
	if int(k) < len(changeNames) {
		return changeNames[k]
	}
	return "change?"
}

// Change is one entry that differs between two Observations.
type Change struct {
	// Path is the world path of what changed. A change in the moat above
	// T gets a path starting "/.." ("/../x" is beside T), so confinement,
	// which refuses ".." segments, judges it.
	Path   string
	Kind   ChangeKind
	Data   string // a file's content after the change, canary included as on disk; "" when removed
	Target string // a link's target after the change, as Entry.Target; "" when removed
	Dir    bool   // the entry is a directory (after the change; before it, when removed)
	Link   bool   // the entry is a symbolic link before the change or after it: the link itself changed
}

// Changes lists what differs from before to after, two Observations of t
// as Observe returns them, sorted by Path.
func (t *Tree) Changes(before, after Observation) []Change {
	var out []Change
	b, a := before.Entries, after.Entries
	for len(b) > 0 || len(a) > 0 {
		switch {
		case len(a) == 0 || len(b) > 0 && b[0].Path < a[0].Path:
			out = append(out, Change{Path: b[0].Path, Kind: Removed, Dir: b[0].Mode.IsDir(), Link: isLink(b[0])})
			b = b[1:]
		case len(b) == 0 || a[0].Path < b[0].Path:
			out = append(out, changeTo(Created, a[0]))
			a = a[1:]
		default:
			if b[0] != a[0] {
				kind := Modified
				if b[0].Mode.Type() != a[0].Mode.Type() {
					kind = Retyped
				}
				c := changeTo(kind, a[0])
				c.Link = c.Link || isLink(b[0])
				out = append(out, c)
			}
			a, b = a[1:], b[1:]
		}
	}
	return out
}

func changeTo(kind ChangeKind, e Entry) Change {
	return Change{Path: e.Path, Kind: kind, Data: e.Data, Target: e.Target, Dir: e.Mode.IsDir(), Link: isLink(e)}
}

func isLink(e Entry) bool { return e.Mode&fs.ModeSymlink != 0 }
