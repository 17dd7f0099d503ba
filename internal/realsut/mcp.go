package realsut

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
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
func MCP(command string) (Adapter, error) {
	argv, err := proc.SplitWords(command)
	if err != nil {
		return Adapter{}, fmt.Errorf("%q: %v", command, err)
	}
	if len(argv) == 0 {
		return Adapter{}, fmt.Errorf("no command after %s", MCPPrefix)
	}
	profile := mcp.Filesystem
	if file := os.Getenv(ProfileEnv); file != "" {
		// ReadInput refuses a named pipe or a device at once rather than
		// wait for a writer, and bounds the size.
		data, err := fsutil.ReadInput(file)
		if err != nil {
			return Adapter{}, fmt.Errorf("%s: %v", ProfileEnv, err)
		}
		if profile, err = mcp.ParseProfile(data); err != nil {
			return Adapter{}, fmt.Errorf("%s: %s: %v", ProfileEnv, file, err)
		}
	}
	probe := probeOnce(argv, profile)
	return Adapter{
		Name: MCPPrefix + command,
		Open: func(dir string) (Session, error) {
			if err := probe(dir); err != nil {
				return nil, err
			}
			// The server runs in the session's own directory, outside every
			// tree: what it writes where it runs (logs, caches) is not the
			// op's doing.
			return &mcpSession{argv: argv, profile: profile, cwd: dir}, nil
		},
		Adapt:         AdaptOneList,
		NotApplicable: FSOnlyNA,
		// Releases since 2025.7.1 refuse a write through a dangling link
		// (the fix of CVE-2025-53109): stricter than §13, never unsafe.
		RefusesDanglingWrites: true,
	}, nil
}

// probeOnce returns a function that starts the server once, in dir, and
// stops it again, the first time it is called, and returns the same
// error every time: a command that does not start, a server that fails the
// handshake, or one that lacks the profile's tools is a setup error before
// any check (exit 2), not a total finding on every scenario.
func probeOnce(argv []string, profile mcp.Profile) func(dir string) error {
	var (
		once sync.Once
		err  error
	)
	return func(dir string) error {
		once.Do(func() {
			var srv *mcp.Server
			if srv, err = mcp.Start(mcp.Config{Command: argv, Profile: profile, Root: dir, Allowed: []string{dir}}); err == nil {
				srv.Close()
			}
		})
		return err
	}
}

// mcpSession keeps one server per tree slot: a server's allowed
// directories are its arguments, and each slot's tree lives at the same
// place scenario after scenario, so a server is reused until the grant's
// roots change.
type mcpSession struct {
	argv    []string
	profile mcp.Profile
	cwd     string // the servers' working directory: the session's own
	mu      sync.Mutex
	pools   map[string]*mcp.Pool // by tree root
}

func (s *mcpSession) Driver(t *realfs.Tree, g core.GrantSpec, _ core.WorldSpec) (realfs.Driver, error) {
	var allowed []string
	for _, r := range g.FSRead {
		p, ok := t.Path(core.Canonical(r))
		if !ok {
			return nil, fmt.Errorf("the root %q has no place on the disk", r)
		}
		allowed = append(allowed, p)
	}
	s.mu.Lock()
	if s.pools == nil {
		s.pools = map[string]*mcp.Pool{}
	}
	pool := s.pools[t.Root()]
	if pool == nil {
		pool = new(mcp.Pool)
		s.pools[t.Root()] = pool
	}
	s.mu.Unlock()
	srv, err := pool.Get(mcp.Config{Command: s.argv, Profile: s.profile, Root: s.cwd, Allowed: allowed})
	if err != nil {
		return nil, err
	}
	// Closing the driver leaves the server to its pool; a server stuck in
	// a call is killed by the call's own timeout.
	return mcp.NewDriver(srv, t), nil
}

func (s *mcpSession) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pools {
		p.Close()
	}
	return nil // the adapter removes the session's directory, cwd included
}

// AdaptOneList is AdaptFS for a server with one list of directories for
// reads and writes (SPEC §13): the grant's fs_write roots become its
// fs_read roots, paths with ".." are left out, and file contents become
// valid UTF-8, since an MCP server returns text.
func AdaptOneList(sc *scenario.Scenario) *scenario.Scenario {
	out := AdaptFS(sc)
	if out == nil || len(out.Grant.FSRead) == 0 {
		return nil
	}
	out.Grant.FSWrite = append([]string(nil), out.Grant.FSRead...)
	// The server cleans ".." out of a path before it checks it: a policy
	// of its own, safe but not SPEC §4's, so a traversal verdict could not
	// be compared. Paths with ".." are not drawn; escapes stay covered by
	// links and prefix siblings, whose effects confinement judges.
	steps := out.Steps[:0]
	for _, st := range out.Steps {
		if !core.HasTraversal(st.Op.Args[0]) {
			steps = append(steps, st)
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
