package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/netns"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
)

// ProtocolVersion is the MCP revision the client asks for. Servers answer
// with one they speak (server-filesystem 2025.3.28 answers 2024-11-05);
// the client uses only initialize, tools/list and tools/call, alike in
// all of them.
const ProtocolVersion = "2025-06-18"

// DefaultTimeout bounds one tools/call when Config.Timeout is zero.
const DefaultTimeout = 2 * time.Second

// DefaultStartTimeout bounds start-up and initialize when
// Config.StartTimeout is zero: node starts a server in a second or two on
// a quiet small machine, but a server that loads much, on a machine busy
// with other work, has been seen to take 18 s, and a server that cannot
// be judged at all is worse than a slow start.
const DefaultStartTimeout = 60 * time.Second

// ErrTimeout is wrapped by the failure of a request the server did not
// answer within its timeout: the caller may tell a server that hangs from
// one that broke.
var ErrTimeout = errors.New("the MCP server did not answer")

// closeWait is how long Close lets a server exit after its stdin closes;
// a variable so that a test can tell a server that exits from one that is
// killed without racing the machine's speed.
var closeWait = time.Second

// Config says which server to start and how to talk to it.
type Config struct {
	Command []string // the server's command, split into words; the allowed directories are appended
	Profile Profile  // how ops map onto its tools; the zero Profile is Filesystem
	Root    string   // its working directory, unless it works on its allowed directory (Profile.Cwd); empty: the harness's
	// Home is the directory its own HOME is made in; empty: Root, else
	// the temporary directory.
	Home         string
	Allowed      []string      // its allowed directories, as paths on disk
	Timeout      time.Duration // per call; 0 is DefaultTimeout
	StartTimeout time.Duration // for start-up and initialize; 0 is DefaultStartTimeout
	// Net, when set, runs the server in a network namespace of its own
	// answered by it (proc.StartNet, SPEC §14): every connection it opens
	// reaches Net's listeners and is among Namespace's records.
	Net *netns.Network
	// State is what the server may have learned of its directories when
	// it started, as its caller describes it: a server reads where each
	// leads then (@modelcontextprotocol/server-filesystem resolves their
	// links and drops those that are not directories), so a Pool reuses
	// one only for the same State. The server never sees it.
	State string
}

// Info is what a server said of itself in initialize.
type Info struct {
	Name     string // serverInfo.name
	Version  string // serverInfo.version
	Protocol string // the protocol version it chose
}

// Server is one running MCP server, spoken to over its stdin and stdout.
// Calls are serialized; Close may come from another goroutine at any
// time. Any failure — the server exits, hangs past the timeout, or writes
// something that is not a JSON-RPC message — kills its process group and
// leaves the Server unusable: every later call returns that failure.
type Server struct {
	cfg   Config // Profile and timeouts may change under mu (Pool.Get)
	p     *proc.Process
	out   *proto.Reader
	info  Info
	tools []string
	// required holds, by tool, the arguments its input schema requires.
	required map[string][]string
	home     string       // its HOME, removed by Close
	skipped  atomic.Int64 // lines of its stdout that were not JSON
	// firstSkipped is the start of the first of them.
	firstSkipped atomic.Pointer[string]
	// listChanges is whether it said it tells when its tools change
	// (notifications/tools/list_changed); toolsChanged, that it did.
	listChanges  bool
	toolsChanged atomic.Bool
	calling      sync.Mutex // held for a call
	heard        []byte     // the strings of the notifications of the last call, under calling
	// nullAnswer is whether an error answer with no id may still come:
	// the one a server that answers every method it does not know gives
	// notifications/initialized, passed over once, until the call after it
	// is answered.
	nullAnswer atomic.Bool
	// handedOut is whether the server was handed out again (Pool.Get)
	// and has not been called since: what it says first may be a log it
	// wrote after its last answer to another scenario.
	handedOut atomic.Bool
	id        int64 // last request id, under calling

	mu   sync.Mutex
	dead error
}

// ErrClosed is the failure of a call on a closed Server.
var ErrClosed = errors.New("the MCP server was closed")

// Start starts the server cfg describes, in cfg.Root with cfg.Allowed
// appended to its command, says initialize (declaring no capabilities:
// roots of the client's would replace the allowed directories) and
// notifications/initialized, and lists its tools, which must include
// the profile's.
func Start(cfg Config) (*Server, error) { return start(cfg, nil) }

// start is Start, handing the server to starting, when set, before its
// handshake: a server that hangs there can then be killed by its pool's
// Close without a wait for its start timeout.
func start(cfg Config, starting func(*Server)) (*Server, error) {
	cfg = cfg.defaulted()
	if err := cfg.Profile.check(); err != nil {
		return nil, err
	}
	if len(cfg.Command) == 0 {
		return nil, errNoCommand
	}
	p, home, err := launch(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, p: p, out: proto.NewReader(withoutBOM(p.Stdout())), home: home}
	if starting != nil {
		starting(s)
	}
	if err := s.handshake(); err != nil {
		s.p.Kill()
		os.RemoveAll(home)
		return nil, err
	}
	if err := s.hasTools(cfg.Profile); err != nil {
		// Only a server with no tool yet waits for them: most declare
		// listChanged, and a profile for another server is told at once.
		if !s.listChanges || len(s.tools) > 0 || s.awaitTools(cfg.Profile) != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// toolsPoll is how often a server whose tools may come later is pinged,
// which reads the notifications it wrote meanwhile.
const toolsPoll = 50 * time.Millisecond

// awaitTools waits, within the start timeout, for a server that lists
// tools as they come (capabilities.tools.listChanged) and listed none to
// say that its list changed and to list the profile's tools: one that
// connects to a backend, or loads its tools, after it answered
// initialize. It pings the
// server meanwhile, MCP's way of asking a server that owes no answer, so
// that the notification is read.
func (s *Server) awaitTools(p Profile) error {
	deadline := time.Now().Add(s.cfg.StartTimeout)
	for time.Now().Before(deadline) {
		if s.toolsChanged.Swap(false) {
			s.tools, s.required = nil, nil
			if err := s.listTools(); err != nil {
				return err
			}
			if s.hasTools(p) == nil {
				return nil
			}
		}
		if err := s.call("ping", struct{}{}, nil, max(time.Until(deadline), time.Millisecond)); err != nil {
			return err
		}
		time.Sleep(toolsPoll)
	}
	return ErrTimeout
}

func (c Config) defaulted() Config {
	c.Profile = c.Profile.orDefault()
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	return c
}

// handshake is initialize, notifications/initialized and tools/list.
func (s *Server) handshake() error {
	var init struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ServerInfo      struct{ Name, Version string }
	}
	params := map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    struct{}{},
		"clientInfo":      map[string]string{"name": "sbxfuzz", "version": "1"},
	}
	if err := s.call("initialize", params, &init, s.cfg.StartTimeout); err != nil {
		return err
	}
	s.info = Info{Name: init.ServerInfo.Name, Version: init.ServerInfo.Version, Protocol: init.ProtocolVersion}
	tools, ok := init.Capabilities["tools"]
	if !ok {
		return s.broken(errors.New("initialize: the server offers no tools"))
	}
	var changes struct {
		ListChanged bool `json:"listChanged"`
	}
	s.listChanges = json.Unmarshal(tools, &changes) == nil && changes.ListChanged
	s.nullAnswer.Store(true)
	if err := s.notify("notifications/initialized"); err != nil {
		return err
	}
	return s.listTools()
}

// maxToolPages bounds tools/list pagination against a server whose
// cursor never ends.
const maxToolPages = 100

// listTools reads every page of tools/list.
func (s *Server) listTools() error {
	cursor := ""
	for range maxToolPages {
		params := map[string]string{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var page struct {
			Tools []struct {
				Name        string
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			NextCursor string `json:"nextCursor"`
		}
		if err := s.call("tools/list", params, &page, s.cfg.StartTimeout); err != nil {
			return err
		}
		for _, t := range page.Tools {
			s.tools = append(s.tools, t.Name)
			if req := requiredArguments(t.InputSchema); len(req) > 0 {
				if s.required == nil {
					s.required = map[string][]string{}
				}
				s.required[t.Name] = req
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			return nil
		}
	}
	return s.broken(fmt.Errorf("tools/list: more than %d pages", maxToolPages))
}

// requiredArguments is the "required" list of a tool's input schema, the
// arguments it must be called with; nil for a schema that has none or
// does not read.
func requiredArguments(schema json.RawMessage) []string {
	var sch struct {
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &sch) != nil {
		return nil
	}
	return sch.Required
}

// hasTools reports a profile tool the server does not have, or that the
// profile calls without an argument the tool's input schema requires: a
// profile for another server, or one that names its arguments wrong,
// caught at start rather than as a refusal of every op.
func (s *Server) hasTools(p Profile) error {
	for _, t := range []Tool{p.Read, p.Write, p.Fetch} {
		if t.Name == "" {
			continue
		}
		if !slices.Contains(s.tools, t.Name) {
			return fmt.Errorf("profile %s: the server %s has no tool %q (it has %v)", p.Name, s.info.Name, t.Name, s.tools)
		}
		args, err := t.arguments("p", "c")
		if err != nil {
			continue // Profile.check says so
		}
		var missing []string
		for _, r := range s.required[t.Name] {
			if _, ok := args[r]; !ok {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("profile %s: the tool %q of the server %s requires the arguments %q (its input schema), and the profile gives %q: name them in the profile (path, content, url, or args)",
				p.Name, t.Name, s.info.Name, missing, slices.Sorted(maps.Keys(args)))
		}
	}
	return nil
}

// Info is what the server said of itself.
func (s *Server) Info() Info { return s.info }

// Tools lists the names of the server's tools.
func (s *Server) Tools() []string { return slices.Clone(s.tools) }

// Profile is the profile ops on s are mapped with.
func (s *Server) Profile() Profile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Profile
}

// Namespace is the network namespace the server runs in (Config.Net),
// or nil.
func (s *Server) Namespace() *netns.Sandbox { return s.p.Namespace() }

// Exited is closed when the server's process has ended.
func (s *Server) Exited() <-chan struct{} { return s.p.Exited() }

// Stderr is the tail of the server's stderr.
func (s *Server) Stderr() string { return s.p.Stderr() }

// Err is why the server can no longer be used, nil while it can.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

// Close closes the server's stdin, lets it exit for up to a second, then
// kills its process group. Calls after Close return ErrClosed; Close
// during a call makes the call return.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.dead == nil {
		s.dead = ErrClosed
	}
	s.mu.Unlock()
	s.p.Stop(closeWait)
	os.RemoveAll(s.home)
	return nil
}
