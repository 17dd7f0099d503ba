package realsut

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
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
	Open:          func(string, Timeouts) (Session, error) { return osRootSession{}, nil },
	Adapt:         AdaptFS,
	Asks:          asksFiles,
	Why:           WhyNotFS,
	NotApplicable: FSOnlyNA,
	RelativeLinks: true, // os.Root refuses every absolute link
	// The harness's own sandbox promises all it can express: what it
	// cannot, it answers Unsupported; any other refusal of an op the
	// model allows is a finding.
	Promises: []string{PromisesAll},
}

type osRootSession struct{}

func (osRootSession) Close() error { return nil }

func (osRootSession) Driver(t *realfs.Tree, g core.GrantSpec, ws scenario.WorldSpec) (realfs.Driver, error) {
	return &osRootDriver{tree: t, world: refworld.Prepare(ws), read: g.FSRead, write: g.FSWrite}, nil
}

type osRootDriver struct {
	tree        *realfs.Tree
	world       *refworld.Template // for telling os.Root's refusals that §13 would follow
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
	if spec.HasTraversal(p) {
		return realfs.Outcome{Verdict: realfs.Denied, Detail: "path has a .. segment"}, nil
	}
	c := spec.Canonical(p)
	root := ""
	for _, r := range roots {
		if spec.UnderAllowlist(c, []string{r}) && len(spec.Canonical(r)) > len(root) {
			root = spec.Canonical(r)
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
		case spec.UnderAllowlist(r, roots):
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

// MaxTreeEntries is the most files and links a world may have to be
// materialized as a real tree. The harness walks the tree after every op
// to see what changed: a world much larger makes every op of a correct
// sandbox take longer than its timeout, a hang blamed on the sandbox.
const MaxTreeEntries = 4096

// CheckSize refuses a world too large to be materialized as a real tree:
// more than MaxTreeEntries files and links.
func CheckSize(ws scenario.WorldSpec) error {
	if n := len(ws.Files) + len(ws.Links); n > MaxTreeEntries {
		return fmt.Errorf("the world has %d files and links; a real tree holds at most %d (the harness walks it after every op)", n, MaxTreeEntries)
	}
	return nil
}

// AdaptFS narrows a scenario to what a sandbox of file tools can be asked:
// fs_read and fs_write ops of absolute, well-formed paths that climb at
// most MaxDots levels, under a grant of file roots only, over a world a
// real tree can hold (CheckSize too), each op held by the disk as by the
// flat world (realfs.Holds). It returns nil when no op is left, and for a
// world where a grant root is a link or lies under one (rootsLinked).
func AdaptFS(sc *scenario.Scenario) *scenario.Scenario {
	out, _ := adaptFS(sc)
	return out
}

// WhyNotFS says, in a clause, why AdaptFS keeps nothing of sc (the first
// of its conditions sc fails), or "" when it keeps some of it: a replay
// of a hand-written file that skips it whole says so.
func WhyNotFS(sc *scenario.Scenario) string {
	_, why := adaptFS(sc)
	return why
}

// adaptFS is AdaptFS, with why it keeps nothing when it does not.
func adaptFS(sc *scenario.Scenario) (*scenario.Scenario, string) {
	if err := CheckSize(sc.World); err != nil {
		return nil, err.Error()
	}
	out := sc.Clone()
	out.Grant.NetHosts, out.Grant.Tools = nil, nil
	out.World.Routes, out.World.DNS, out.World.ToolOutputs = nil, nil, nil
	out.World.Links = slices.DeleteFunc(out.World.Links, climbsAboveRoot)
	if dropped := filesHoldingOthers(out.World); len(dropped) > 0 {
		out.World.Files = slices.DeleteFunc(out.World.Files, func(f scenario.File) bool { return dropped[spec.Canonical(f.Path)] })
		// An op on such a file asks a disk something else than the
		// flat world: a directory, not the file's bytes.
		out.Steps = slices.DeleteFunc(out.Steps, func(st scenario.Step) bool {
			return len(st.Op.Args) > 0 && (st.Op.Kind == core.OpRead || st.Op.Kind == core.OpWrite) && dropped[spec.Canonical(st.Op.Args[0])]
		})
	}
	if rootsLinked(out.World, out.Grant) {
		return nil, "a grant root is a link or lies under one, which a real sandbox opens through its link"
	}
	out.Steps = slices.DeleteFunc(out.Steps, func(st scenario.Step) bool { return !askable(st.Op) })
	if len(out.Steps) == 0 {
		return nil, fmt.Sprintf(`no op is an fs_read or fs_write of an absolute path that climbs at most %d "..", a write's with no "\"`, MaxDots)
	}
	holds := realfs.Holds(out.World, out.Grant, out.Ops())
	if holds == nil {
		return nil, fmt.Sprint(realfs.Expressible(out.World, out.Grant, nil))
	}
	kept := out.Steps[:0]
	for i, st := range out.Steps {
		if holds[i] {
			kept = append(kept, st)
		}
	}
	out.Steps = kept
	if len(out.Steps) == 0 {
		return nil, "a disk holds none of its ops as the flat world does (a write to a path that is a directory there, or under a file)"
	}
	// The factory adds moatOps to the ops when it materializes: the moat
	// must fit both.
	if err := realfs.Expressible(out.World, out.Grant, append(out.Ops(), moatOps...)); err != nil {
		return nil, err.Error()
	}
	return out, ""
}

// filesHoldingOthers returns the canonical paths of the files of w that a
// flat world holds beside files and links below them (the content a
// sandbox keeps at a root's own key, a file at "/"), which a disk cannot:
// "/", or the directory of another file or link. Left out, with the ops
// on them, the world is one a disk holds, and the scenario is asked
// rather than left out whole.
func filesHoldingOthers(w scenario.WorldSpec) map[string]bool {
	var below []string
	for _, f := range w.Files {
		below = append(below, spec.Canonical(f.Path))
	}
	for _, l := range w.Links {
		below = append(below, spec.Canonical(l.Path))
	}
	dropped := map[string]bool{}
	for _, f := range w.Files {
		c := spec.Canonical(f.Path)
		if c == "/" || slices.ContainsFunc(below, func(q string) bool { return strings.HasPrefix(q, c+"/") }) {
			dropped[c] = true
		}
	}
	return dropped
}

// rootsLinked reports whether some fs_read or fs_write root of g resolves,
// through the links of w, to another path than its own (it is a link, or
// lies under one), or not at all (a loop). SPEC §13 holds the resolved path
// to the roots as written, so everything under such a root is denied; a
// real sandbox is given the root as a directory on disk, and os.Root and
// MCP servers open it through its link by design (a server resolves its
// allowed directories when it starts): they would be judged for following
// the one link they were told to trust.
func rootsLinked(w scenario.WorldSpec, g core.GrantSpec) bool {
	if len(w.Links) == 0 {
		return false
	}
	t := refworld.Prepare(w)
	for _, r := range slices.Concat(g.FSRead, g.FSWrite) {
		if real, ok := t.Resolve(r); !ok || real != spec.Canonical(r) {
			return true
		}
	}
	return false
}

// asksFiles says what AdaptFS keeps of a scenario (askable, CheckSize,
// rootsLinked, realfs.Holds).
var asksFiles = fmt.Sprintf(`fs_read, and fs_write with no "\" in its path, of absolute paths that climb at most %d "..", under grant roots that are not links, where a disk holds what the flat world does (no name over 255 bytes, no write to a path that is a directory there)`, MaxDots)

// askable reports whether a file sandbox can be asked op: a well-formed
// fs op on an absolute path that climbs at most MaxDots levels, however a
// sandbox decodes it (climbs). A write
// is not asked a path with "\": a sandbox may read it as a byte of a name,
// as a POSIX disk does, or as a separator, and either is lawful
// (backslashRead), so the world could part from the model's where it
// lands. A read with one is asked, and judged by what it let out.
func askable(op core.Op) bool {
	if !realOp(op) {
		return false
	}
	p := op.Args[0]
	return strings.HasPrefix(p, "/") && (op.Kind == core.OpRead || !strings.Contains(p, `\`)) && climbs(p) <= MaxDots
}

// backslashRead reports whether op is a read whose path holds "\" and no
// ".." between slashes. A sandbox on a POSIX disk reads "\" as a byte of
// a name (SPEC §4's traversal verdict cannot be seen there: a path with
// `\..\` names a file inside its directory), and one written for Windows
// too reads it as a separator: its answer is a policy of its own, not
// judged, but what it let out is (a sandbox that checks the path, then
// turns "\" into "/" and reads out of its roots).
func backslashRead(op core.Op) bool {
	p := op.Args[0]
	return op.Kind == core.OpRead && strings.Contains(p, `\`) && !slices.Contains(strings.Split(p, "/"), "..")
}

// climbsAboveRoot reports whether a link's target, read from the link's
// directory, climbs above "/" with "..": the world stops at its root
// (SPEC §13), a disk under T goes on into the moat, so the two would part.
func climbsAboveRoot(l scenario.Link) bool {
	depth := 0 // the names above the place the target is read from
	if dir := path.Dir(spec.Canonical(l.Path)); !strings.HasPrefix(l.Target, "/") && dir != "/" {
		depth = strings.Count(dir, "/")
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
