package realsut

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// MCPPrefix starts the --sut name of an MCP server driven over stdio:
// "mcp:node …/server-filesystem/dist/index.js".
const MCPPrefix = "mcp:"

// ProfileEnv names the environment variable that points at an MCP profile
// (a JSON file, see internal/mcp), for a server whose tools are not those of
// @modelcontextprotocol/server-filesystem.
const ProfileEnv = "SBXFUZZ_MCP_PROFILE"

// MCP returns the adapter of the MCP server that command starts (the
// allowed directories are appended to it), mapping ops with the profile
// ProfileEnv names, or with the built-in one for
// @modelcontextprotocol/server-filesystem.
func MCP(command string) (Adapter, error) { return MCPWith(command, os.Getenv(ProfileEnv)) }

// MCPWith is MCP with the profile named by profile (--profile): the name
// of a built-in one (mcp.BuiltinProfiles), else a JSON file; empty is
// the built-in profile of @modelcontextprotocol/server-filesystem.
func MCPWith(command, profile string) (Adapter, error) {
	p, err := LoadProfile(profile)
	if err != nil {
		return Adapter{}, err
	}
	return MCPWithProfile(command, p)
}

// MCPWithProfile is MCPWith with the profile read already (LoadProfile).
func MCPWithProfile(command string, p mcp.Profile) (Adapter, error) {
	argv, err := proc.SplitWords(command)
	if err != nil {
		return Adapter{}, fmt.Errorf("%q: %v", command, err)
	}
	if len(argv) == 0 {
		return Adapter{}, fmt.Errorf("no command after %s", MCPPrefix)
	}
	if err := checkPromises(p.Promises); err != nil {
		return Adapter{}, fmt.Errorf("profile %s: %w", p.Name, err)
	}
	anchored := proc.Anchored(argv)
	return mcpAdapter(finding.CommandName(command, argv, anchored), anchored, p), nil
}

// checkPromises refuses a promise of a reason no refusal is counted
// under: a typo would otherwise promise nothing, silently.
func checkPromises(promises []string) error {
	for _, r := range promises {
		if r != PromisesAll && !slices.Contains(StricterReasons(), r) {
			return fmt.Errorf("%w: promises: unknown reason %q (want %s or %s)", mcp.ErrProfile, r, strings.Join(StricterReasons(), ", "), PromisesAll)
		}
	}
	return nil
}

// LoadProfile reads the profile a --profile value names: a built-in one by
// name, else a JSON file; "" is mcp.Filesystem.
func LoadProfile(name string) (mcp.Profile, error) {
	if name == "" {
		return mcp.Filesystem, nil
	}
	if p, ok := mcp.LookupProfile(name); ok {
		return p, nil
	}
	// ReadInput refuses a named pipe or a device at once rather than
	// wait for a writer, and bounds the size.
	data, err := fsutil.ReadInput(name)
	if err != nil {
		return mcp.Profile{}, fmt.Errorf("profile: %v", err)
	}
	p, err := mcp.ParseProfile(data)
	if err != nil && strings.Contains(err.Error(), "unknown field") {
		// A fetch server's profile misspelt ("mpc") reads as a file
		// server's: say which fields those are. (encoding/json's
		// unknown-field error has no type of its own to test for.)
		return mcp.Profile{}, fmt.Errorf("profile %s: %v (a file server's profile has read, write, dir_flag, ...; a fetch server's has an \"mcp\" field: docs/real-sandboxes.md)", name, err)
	}
	if err != nil {
		return mcp.Profile{}, fmt.Errorf("profile %s: %v", name, err)
	}
	return p, nil
}

func mcpAdapter(command string, argv []string, profile mcp.Profile) Adapter {
	probe := probeOnce(argv, profile)
	return Adapter{
		Name: MCPPrefix + command,
		Open: func(dir string, t Timeouts) (Session, error) {
			if err := probe(dir, t); err != nil {
				return nil, err
			}
			// The server runs in the session's own directory, outside every
			// tree: what it writes where it runs (logs, caches) is not the
			// op's doing.
			return &mcpSession{argv: argv, profile: profile, cwd: dir, timeouts: t, pool: mcp.Pool{Max: serversPerSession}}, nil
		},
		Adapt:         adaptTo(profile),
		Asks:          asks(profile),
		Why:           WhyNotFS,
		NotApplicable: FSOnlyNA,
		Unasked:       unasked(profile),
		// A server promises to allow only what its profile says: releases
		// of server-filesystem since 2025.7.1 refuse a write through a
		// dangling link (the fix of CVE-2025-53109), stricter than §13,
		// never unsafe.
		Promises:      profile.Promises,
		OwnNames:      profile.OwnNames,
		CleansDots:    profile.DotDot,
		Trims:         profile.Trims,
		JudgesLanding: profile.Lands,
		SkippedLines:  func(s Session) int64 { return s.(*mcpSession).pool.SkippedLines() },
		RootBlock:     mcpRootBlock,
	}
}

// probeOnce returns a function that starts the server once, in dir, and
// stops it again, the first time it is called, and returns the same
// error every time: a command that does not start, a server that fails the
// handshake, or one that lacks the profile's tools is a setup error before
// any check (exit 2), not a total finding on every scenario.
//
// A server that does not answer initialize within t.Start is such an
// error too: under a timeout that lets it start, it is judged.
func probeOnce(argv []string, profile mcp.Profile) func(dir string, t Timeouts) error {
	var (
		once sync.Once
		err  error
	)
	return func(dir string, t Timeouts) error {
		once.Do(func() {
			var srv *mcp.Server
			cfg := mcp.Config{Command: argv, Profile: profile, Root: dir, Allowed: []string{dir}, Timeout: t.Op, StartTimeout: t.Start}
			if srv, err = mcp.Start(cfg); err == nil {
				srv.Close()
			}
		})
		return err
	}
}

// mcpSession keeps a few servers alive in one pool. A server's allowed
// directories are its arguments, and each slot's tree lives at the same
// place scenario after scenario (the factory restores it in place), so a
// server serves every later scenario of the same slot and root layout: it
// is restarted only when it failed, or when what it may have learned of
// its directories at its start differs (dirState).
type mcpSession struct {
	argv     []string
	profile  mcp.Profile
	cwd      string // the servers' working directory: the session's own
	timeouts Timeouts
	pool     mcp.Pool
}

// mcpRootBlock is how many drawn scenarios in a row have their read roots
// from one base: with the base fixed, a worker's grants fall into a few
// sets of roots, each a server of its pool, started once for the block.
// Long enough that those starts are a small part of a block's time, short
// enough that a run of minutes meets every base.
const mcpRootBlock = 4096

// serversPerSession is how many servers a session keeps alive, each for
// one slot and root layout: enough for the run's slot and the replay's
// under the few layouts most generated grants have, few enough that a
// machine holds those of every worker.
const serversPerSession = 16

func (s *mcpSession) Driver(t *realfs.Tree, g core.GrantSpec, _ scenario.WorldSpec) (realfs.Driver, error) {
	var allowed, anew []string
	held := s.profile.Cwd || s.profile.HoldsDirs
	for _, r := range g.FSRead {
		p, ok := t.Path(spec.Canonical(r))
		if !ok {
			return nil, fmt.Errorf("the root %q has no place on the disk", r)
		}
		allowed = append(allowed, p)
		if held && !t.Kept(r) {
			anew = append(anew, p)
		}
	}
	// The tree keeps the roots' directories from one world to the next
	// that has them (realfs.Options.KeepRoots), and makes every other
	// anew: a server that holds one it was given before (its working
	// directory, an open handle, a bind mount) holds a directory no longer
	// on the disk, even where the new one has the old one's inode. A
	// server that holds paths serves the new one as the old.
	slot := t.Base() + string(filepath.Separator)
	s.pool.DropIf(func(c mcp.Config) bool {
		return strings.HasPrefix(c.Allowed[0], slot) && slices.ContainsFunc(c.Allowed, func(d string) bool { return slices.Contains(anew, d) })
	})
	// The order and repeats of a grant's roots mean nothing to a server
	// of one list: one command line for each set keeps it in the pool.
	slices.Sort(allowed)
	allowed = slices.Compact(allowed)
	cfg := mcp.Config{Command: s.argv, Profile: s.profile, Root: s.cwd, Allowed: allowed,
		Timeout: s.timeouts.Op, StartTimeout: s.timeouts.Start, State: dirState(allowed, held)}
	if s.profile.Cwd {
		// A server works in the directory it was started in: one this slot
		// started in another directory is no use any more.
		s.pool.DropIf(func(c mcp.Config) bool {
			return strings.HasPrefix(c.Allowed[0], slot) && !slices.Equal(c.Allowed, allowed)
		})
	}
	srv, err := s.pool.Get(cfg)
	if err != nil {
		return nil, err
	}
	return newWatchedDriver(mcp.NewDriver(srv, t), srv, s.timeouts.Op), nil
}

// dirState describes what a server started now could learn of its
// allowed directories: for each, where its links lead, whether it is a
// directory, and, for a server that holds them, which directory (dirID).
// @modelcontextprotocol/server-filesystem
// resolves them once, at its start, and drops those that are no
// directory; a server confined to them by the kernel holds the
// directories themselves. A server that did so for another world than the
// tree's now would judge this one by the other's roots, so it is reused
// only while the description is the same. (A server that learns more at
// its start, its directories' contents say, would need a fresh start
// each time: none known does.)
func dirState(allowed []string, held bool) string {
	var b strings.Builder
	for _, d := range allowed {
		r, err := filepath.EvalSymlinks(d)
		switch fi, serr := os.Stat(d); {
		case err != nil:
			b.WriteString("missing")
		case serr != nil || !fi.IsDir():
			b.WriteString("file " + r)
		case held:
			b.WriteString("dir " + r + " " + dirID(fi))
		default:
			b.WriteString("dir " + r)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// watchedDriver is an MCP server's driver as the oracle's watchdog needs
// it. A call the server does not answer within the op timeout waits for
// the watchdog to give up on the op (it does so within a quarter of the
// timeout more) and close the sandbox, so that the oracle calls it a hang
// (Finding.Hang), which a campaign confirms on a fresh server before it
// counts, rather than a server failure, which it would take as it is.
// Closing the driver during a call stops the server, so that its pool
// starts a fresh one for the next scenario instead of handing out one
// still stuck in the call.
type watchedDriver struct {
	realfs.Driver
	srv    *mcp.Server
	wait   time.Duration // how long a timed-out call waits for Close: past it, no one is watching
	busy   atomic.Bool   // a call is under way
	closed chan struct{}
	once   sync.Once
}

// closeWaits is how many op timeouts a timed-out call waits for the
// watchdog's Close: far more than the quarter of one it takes, so that a
// busy machine does not turn a hang into a server failure.
const closeWaits = 4

func newWatchedDriver(d realfs.Driver, srv *mcp.Server, timeout time.Duration) *watchedDriver {
	if timeout <= 0 {
		timeout = mcp.DefaultTimeout
	}
	return &watchedDriver{Driver: d, srv: srv, wait: closeWaits * timeout, closed: make(chan struct{})}
}

// Do implements realfs.Driver.
func (d *watchedDriver) Do(op core.Op) (realfs.Outcome, error) {
	d.busy.Store(true)
	defer d.busy.Store(false)
	out, err := d.Driver.Do(op)
	if errors.Is(err, mcp.ErrTimeout) {
		t := time.NewTimer(d.wait)
		select {
		case <-d.closed:
		case <-t.C:
		}
		t.Stop()
	}
	return out, err
}

// Close implements realfs.Driver: the server stays with its pool, unless
// a call is under way (the watchdog gave up on it).
func (d *watchedDriver) Close() error {
	d.once.Do(func() { close(d.closed) })
	if d.busy.Load() {
		d.srv.Close()
	}
	return d.Driver.Close()
}

func (s *mcpSession) Close() error {
	s.pool.Close()
	return nil // the adapter removes the session's directory, cwd included
}

// adaptTo is AdaptOneList for a server with profile p: when p trims paths,
// a scenario ends at the first op on a path it would trim (Adapter.Trims);
// when p has the server
// work on its working directory, or in a namespace whose root is its
// first directory (VirtualRoot), the grant keeps its first root, which
// must be a directory the tree can make (no file there or above it); when
// p joins the directories into one string, a scenario with a root that
// holds the separator is left out (it would read as two roots).
func adaptTo(p mcp.Profile) func(*scenario.Scenario) *scenario.Scenario {
	sep, joined := p.DirsJoinedBy()
	oneRoot := p.Cwd || p.VirtualRoot
	if !p.Trims && !oneRoot && unasked(p) == "" && !joined && !p.DotDot && len(p.OwnNames) == 0 {
		return AdaptOneList
	}
	writesOnly := !p.Supports(core.OpRead)
	return func(sc *scenario.Scenario) *scenario.Scenario {
		if writesOnly {
			// The one list is the write roots for a server that only
			// writes: a grant of fs_write alone is what it can be given.
			sc = sc.Clone()
			sc.Grant.FSRead = slices.Clone(sc.Grant.FSWrite)
		}
		out := adaptOneList(sc, p.DotDot)
		if out == nil {
			return nil
		}
		if joined && slices.ContainsFunc(out.Grant.FSRead, func(r string) bool { return strings.Contains(r, sep) }) {
			return nil // a root that holds the separator reads as two
		}
		out.Steps = slices.DeleteFunc(out.Steps, func(st scenario.Step) bool { return !p.Supports(st.Op.Kind) })
		if p.Trims {
			// The first op on a path the server trims ends the scenario:
			// what it writes there may lawfully differ from the model.
			if i := slices.IndexFunc(out.Steps, func(st scenario.Step) bool { return mcp.Trimmed(st.Op.Args[0]) }); i >= 0 {
				out.Steps = out.Steps[:i+1]
			}
		}
		if len(p.OwnNames) > 0 {
			// The server's own entries are left in its directories:
			// nothing of the world is there, no link leads there, and
			// no op reaches one, through the world's links or not.
			through := func(q string) bool { return passesOwn(q, p.OwnNames) }
			out.World.Files = slices.DeleteFunc(out.World.Files, func(f scenario.File) bool { return through(f.Path) })
			out.World.Links = slices.DeleteFunc(out.World.Links, func(l scenario.Link) bool { return through(l.Path) || through(l.Target) })
			links := refworld.Prepare(out.World)
			out.Steps = slices.DeleteFunc(out.Steps, func(st scenario.Step) bool {
				r, ok := links.Resolve(st.Op.Args[0])
				return through(st.Op.Args[0]) || ok && through(r)
			})
		}
		if oneRoot {
			root := out.Grant.FSRead[:1]
			out.Grant.FSRead, out.Grant.FSWrite = root, slices.Clone(root)
			if fileAtOrAbove(out.World, spec.Canonical(out.Grant.FSRead[0])) {
				return nil
			}
		}
		if len(out.Steps) == 0 {
			return nil
		}
		return out
	}
}

// passesOwn reports whether the path p names or passes through an entry
// called by one of own, as written (cleaning only takes names out).
func passesOwn(p string, own []string) bool {
	return slices.ContainsFunc(strings.Split(p, "/"), func(name string) bool { return slices.Contains(own, name) })
}

// unasked says which file ops a server of profile p is never asked, for
// want of a tool (a server of edit tools that returns no file's content
// has no read), or "" when it has both.
func unasked(p mcp.Profile) string {
	var none []string
	for _, k := range []string{core.OpRead, core.OpWrite} {
		if !p.Supports(k) {
			none = append(none, k)
		}
	}
	if len(none) == 0 {
		return ""
	}
	return strings.Join(none, " and ") + " never asked: profile " + p.Name + " has no tool for it, so nothing of it is judged"
}

// asks says what adaptTo(p) keeps of a scenario.
func asks(p mcp.Profile) string {
	s := asksFiles
	if p.DotDot {
		s += `, up to the first path with ".." (the profile's dotdot: the server cleans it by a policy of its own)`
	} else {
		s += `, with no ".." (a server cleans it before its check; the profile's "dotdot" sends them)`
	}
	if p.Trims {
		s += `, up to the first path with white space or a quote at an end (the profile's trims: the server strips them by a policy of its own)`
	}
	if u := unasked(p); u != "" {
		s += "; " + u
	}
	return s
}

// fileAtOrAbove reports whether a file of w stands at dir or at one of
// its parents, where the tree cannot make dir a directory to start a
// server in.
func fileAtOrAbove(w scenario.WorldSpec, dir string) bool {
	return slices.ContainsFunc(w.Files, func(f scenario.File) bool {
		p := spec.Canonical(f.Path)
		return dir == p || strings.HasPrefix(dir, strings.TrimSuffix(p, "/")+"/")
	})
}

// AdaptOneList is AdaptFS for a server with one list of directories for
// reads and writes (SPEC §13): the grant's fs_read roots become its
// fs_write roots, paths with ".." are left out, and file contents become
// valid UTF-8, since an MCP server returns text.
func AdaptOneList(sc *scenario.Scenario) *scenario.Scenario { return adaptOneList(sc, false) }

// adaptOneList is AdaptOneList, keeping paths with ".." when dots is set
// (Adapter.CleansDots): the scenario then ends at the first, whose effect
// may lawfully differ from the model's.
func adaptOneList(sc *scenario.Scenario, dots bool) *scenario.Scenario {
	out := AdaptFS(sc)
	if out == nil || len(out.Grant.FSRead) == 0 {
		return nil
	}
	out.Grant.FSWrite = append([]string(nil), out.Grant.FSRead...)
	// The server cleans ".." out of a path before it checks it: a policy
	// of its own, not SPEC §4's, so a traversal verdict could not be
	// compared. Paths with ".." are not drawn, unless dots asks for them
	// to judge what the server does with them; escapes stay covered by
	// links and prefix siblings, whose effects confinement judges.
	steps := out.Steps[:0]
	for _, st := range out.Steps {
		dotted := spec.HasTraversal(st.Op.Args[0]) && !backslashRead(st.Op)
		if dotted && !dots {
			continue
		}
		steps = append(steps, st)
		if dotted {
			break
		}
	}
	if out.Steps = steps; len(steps) == 0 {
		return nil
	}
	for i, f := range out.World.Files {
		out.World.Files[i].Data = strings.ToValidUTF8(f.Data, "\uFFFD")
	}
	return out
}
