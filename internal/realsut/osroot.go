package realsut

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// OSRootName is the --sut name of the os.Root sandbox.
const OSRootName = "osroot"

// OSRoot is a reference sandbox for real files built on Go's os.Root: the
// SPEC's lexical checks (§4, §5 step 4), then the file opened through an
// os.Root at the root that allowed it, which follows links only while they
// stay inside that root. It is judged only by observation, like any real
// sandbox. Where os.Root and SPEC §13 differ — a link into another root,
// or a chain of links that leaves the root and comes back, both of which
// §13 follows and os.Root refuses — it answers Unsupported, so the op is
// counted as explained, not judged.
var OSRoot = Adapter{
	Name:          OSRootName,
	Open:          func() (Session, error) { return osRootSession{}, nil },
	Adapt:         AdaptFS,
	NotApplicable: FSOnlyNA,
	RelativeLinks: true, // os.Root refuses every absolute link
}

type osRootSession struct{}

func (osRootSession) Close() error { return nil }

func (osRootSession) Driver(t *realfs.Tree, g core.GrantSpec, ws core.WorldSpec) (realfs.Driver, error) {
	return &osRootDriver{tree: t, world: core.PrepareWorld(ws), read: g.FSRead, write: g.FSWrite}, nil
}

type osRootDriver struct {
	tree        *realfs.Tree
	world       *core.WorldTemplate // for telling os.Root's refusals that §13 would follow
	read, write []string
}

func (d *osRootDriver) Close() error { return nil }

// Do implements realfs.Driver.
func (d *osRootDriver) Do(op core.Op) (realfs.Outcome, error) {
	p := op.Args[0]
	roots := d.read
	if op.Kind == core.OpWrite {
		roots = d.write
	}
	if !strings.HasPrefix(p, "/") {
		return realfs.Outcome{Verdict: realfs.Unsupported, Detail: "a relative path has no place on the disk"}, nil
	}
	if core.HasTraversal(p) {
		return realfs.Outcome{Verdict: realfs.Denied, Detail: "path has a .. segment"}, nil
	}
	c := core.Canonical(p)
	root := ""
	for _, r := range roots {
		if core.UnderAllowlist(c, []string{r}) && len(core.Canonical(r)) > len(root) {
			root = core.Canonical(r)
		}
	}
	if root == "" {
		return realfs.Outcome{Verdict: realfs.Denied, Detail: "path under no root"}, nil
	}
	rootDir, _ := d.tree.Path(root)
	r, err := os.OpenRoot(rootDir)
	if err != nil {
		return realfs.Outcome{Verdict: realfs.NotFound, Detail: err.Error()}, nil
	}
	defer r.Close()
	rel := strings.TrimPrefix(strings.TrimPrefix(c, root), "/")
	if rel == "" {
		rel = "."
	}
	if op.Kind == core.OpWrite {
		err = r.WriteFile(rel, []byte(op.Args[1]), 0o644)
		return d.outcome(err, c, roots, ""), nil
	}
	data, err := r.ReadFile(rel)
	return d.outcome(err, c, roots, string(data)), nil
}

// outcome turns os.Root's answer into a verdict. An escape os.Root refused
// is Unsupported when §13 would have let the path through (its links lead
// under a root after all), and Denied otherwise.
func (d *osRootDriver) outcome(err error, c string, roots []string, data string) realfs.Outcome {
	switch {
	case err == nil:
		return realfs.Outcome{Verdict: realfs.Allowed, Data: data}
	case errors.Is(err, syscall.ELOOP):
		if _, ok := d.world.Resolve(c); ok {
			return realfs.Outcome{Verdict: realfs.Unsupported, Detail: "os.Root follows fewer links than SPEC §13's 40: " + err.Error()}
		}
		return realfs.Outcome{Verdict: realfs.NotFound, Detail: err.Error()}
	case errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ENOTDIR):
		// A directory, which holds no content in SPEC §1's flat world; a
		// path under a file, which holds nothing either.
		return realfs.Outcome{Verdict: realfs.NotFound, Detail: err.Error()}
	case errors.Is(err, fs.ErrNotExist):
		return realfs.Outcome{Verdict: realfs.NotFound, Detail: err.Error()}
	case isEscape(err):
		switch r, ok := d.world.Resolve(c); {
		case !ok:
			return realfs.Outcome{Verdict: realfs.Unsupported, Detail: "os.Root refuses a link that leaves its root, where SPEC §13 finds a loop: " + err.Error()}
		case core.UnderAllowlist(r, roots):
			return realfs.Outcome{Verdict: realfs.Unsupported, Detail: "os.Root refuses a link that leaves its root, which SPEC §13 follows to " + r + ": " + err.Error()}
		}
		return realfs.Outcome{Verdict: realfs.Denied, Detail: err.Error()}
	}
	return realfs.Outcome{Verdict: realfs.Denied, Detail: err.Error()}
}

// isEscape reports whether err is os.Root refusing a path that leaves it.
func isEscape(err error) bool {
	return strings.Contains(err.Error(), "path escapes from parent")
}

// AdaptFS narrows a scenario to what a sandbox of file tools can be asked:
// fs_read and fs_write ops of absolute, well-formed paths that climb at
// most MaxDots levels, under a grant of file roots only, over a world a
// real tree can hold. It returns nil when no op is left.
func AdaptFS(sc *scenario.Scenario) *scenario.Scenario {
	out := sc.Clone()
	out.Grant.NetHosts, out.Grant.Tools = nil, nil
	out.World.Routes, out.World.DNS, out.World.ToolOutputs = nil, nil, nil
	steps := out.Steps[:0]
	for _, st := range out.Steps {
		// On a POSIX disk "\" is a byte of a name, not a separator: a path
		// with `\..\` names a file inside its directory, so SPEC §4's
		// traversal verdict on it cannot be observed.
		if !realOp(st.Op) {
			continue
		}
		if p := st.Op.Args[0]; strings.HasPrefix(p, "/") && !strings.Contains(p, `\`) && strings.Count(p, "..") <= MaxDots {
			steps = append(steps, st)
		}
	}
	out.Steps = diskFits(out, steps)
	out.World.Links = slices.DeleteFunc(out.World.Links, climbsAboveRoot)
	// The factory adds moatOps to the ops when it materializes: the moat
	// must fit both.
	if len(out.Steps) == 0 || realfs.Expressible(out.World, out.Grant, append(out.Ops(), moatOps...)) != nil {
		return nil
	}
	return out
}

// climbsAboveRoot reports whether a link's target, read from the link's
// directory, climbs above "/" with "..": the world stops at its root
// (SPEC §13), a disk under T goes on into the moat, so the two would part.
func climbsAboveRoot(l core.Link) bool {
	depth := 0
	if !strings.HasPrefix(l.Target, "/") {
		depth = strings.Count(path.Dir(core.Canonical(l.Path)), "/")
		if path.Dir(core.Canonical(l.Path)) == "/" {
			depth = 0
		}
	}
	for _, name := range strings.Split(l.Target, "/") {
		switch name {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return true
			}
		default:
			depth++
		}
	}
	return false
}

// maxDiskPath bounds an op's clean path: a real disk refuses a path over
// 4,096 bytes, and T's own path comes first.
const maxDiskPath = 1024

// diskFits drops the ops a real disk cannot hold as the flat world of SPEC
// §1 does: a write to a path that is a directory on the disk (a root, or
// the parent of a file, a link or another op's path), a write under a
// file (both judged where the world's links lead the write too), and a
// path with a name longer than 255 bytes.
func diskFits(sc *scenario.Scenario, steps []scenario.Step) []scenario.Step {
	dirs, files := map[string]bool{}, map[string]bool{}
	addParents := func(p string) {
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for _, r := range append(sc.Grant.FSRead, sc.Grant.FSWrite...) {
		c := core.Canonical(r)
		dirs[c] = true
		addParents(c)
	}
	for _, f := range sc.World.Files {
		files[core.Canonical(f.Path)] = true
		addParents(core.Canonical(f.Path))
	}
	for _, l := range sc.World.Links {
		addParents(core.Canonical(l.Path))
	}
	for _, st := range steps {
		if !core.HasTraversal(st.Op.Args[0]) {
			addParents(core.Canonical(st.Op.Args[0]))
		}
	}
	links := core.PrepareWorld(sc.World)
	underFile := func(p string) bool {
		for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
			if files[d] {
				return true
			}
		}
		return false
	}
	out := steps[:0]
	for _, st := range steps {
		c := core.Canonical(st.Op.Args[0])
		fits := len(c) <= maxDiskPath // T's path and the tree's directories take the rest of PATH_MAX
		for _, name := range strings.Split(c, "/") {
			fits = fits && len(name) <= 255
		}
		if st.Op.Kind == core.OpWrite {
			// Where the write really goes, links followed: a directory
			// there, or a file above it, and the disk refuses it.
			r, ok := links.Resolve(c)
			if !ok {
				r = c
			}
			fits = fits && !dirs[c] && !dirs[r] && !underFile(c) && !underFile(r)
		}
		if fits {
			out = append(out, st)
		}
	}
	return out
}
