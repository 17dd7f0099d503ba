// Package proxysut is the door of HTTP forward proxies (SPEC §14,
// "Doors"): --sut proxy:COMMAND starts the proxy in a network namespace
// of its own (package netns) where every address answers and the world of
// the scenario under way answers its DNS queries and connections (package
// networld), with the grant's net hosts rendered into its configuration
// by a profile, and sends each net_fetch through it, as an absolute-form
// GET or a CONNECT followed by the GET. What the proxy really resolved
// and connected to is journaled in the harness's world, and the oracle
// judges it as any sandbox's journal: a connection to an internal
// address is no-internal-egress, one for a host the grant does not list
// is confinement, one made for an op the model denies is
// no-effect-on-denial, a verdict that differs from the model's is
// verdict-matches-model, a crash or a hang is total.
//
// The answer decides the verdict: the world's answer relayed (it carries
// the header X-Sbxfuzz-World: 1) is ok with its body, or not_found; a 302
// of the world's (a redirect route) is ok with its body, the URL, as the
// model's one request a fetch gives it; the proxy's own 3xx, 4xx or 5xx,
// or a connection closed without an answer, is a refusal. The door never
// follows a redirect itself: a proxy that does makes the next request
// from its namespace, journaled and judged as any other (a Location at an
// internal address is no-internal-egress, at a host the grant does not
// list confinement). A refusal of an op the model allows is stricter, not
// broken: counted under its reason, and a finding only for the reasons
// the profile promises.
//
// The same door judges an MCP server's fetch tool (an agent's; --sut
// mcp:COMMAND with a profile that has an "mcp" field, ServerTarget): the
// server runs in such a namespace, each net_fetch is a tools/call of the
// tool with the URL, and since a tool answers in words of its own, the
// verdict is what the world answered a request for the op's host during
// the call (networld.Binding.Served: for a redirect route, the URL, as
// the model answers, whether or not the tool followed it; the requests
// it made following it are judged as a proxy's); a connection that sent
// no request (TLS to port 443) is the op's fetch, answered as the model
// answers; a call that did neither is a refusal.
package proxysut

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/door"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/proc"
	"github.com/sbxfuzz/sbxfuzz/internal/realfs"
	"github.com/sbxfuzz/sbxfuzz/internal/realsut"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// Prefix starts the --sut name of a proxy: "proxy:./egressproxy".
const Prefix = "proxy:"

// ProfileEnv names the environment variable that names the proxy
// profile (a built-in one, or a JSON file) when --profile is not given.
const ProfileEnv = "SBXFUZZ_PROXY_PROFILE"

// budgetsNA is why the budget invariants are not applicable to a proxy
// or a fetch server.
const budgetsNA = "the sandbox has no budgets: the harness charges ops, wall and output itself, so these checks would test the harness"

// notApplicable lists the invariants a proxy cannot show, with the
// reason; files and tools are never asked of it (Adapt), which the
// reports show per attack class and dimension.
func notApplicable() map[string]string {
	return map[string]string{
		"halt-latched":           budgetsNA,
		"charge-before-dispatch": budgetsNA,
		"output-bounded":         budgetsNA,
		"grant-immutable":        "the sandbox's grant cannot be read back: the harness answers with its own copy",
	}
}

// kindsNotApplicable lists the result kinds no scenario Adapt leaves can
// give, with the reason.
func kindsNotApplicable() map[string]string {
	const (
		netOnly    = "the sandbox is asked net_fetch ops only"
		budgets    = "the harness charges SPEC §10's default budgets, which the door's scenarios do not exhaust"
		wellFormed = "the door sends only well-formed net_fetch ops"
	)
	return map[string]string{
		"path_traversal": netOnly, "fs_read_denied": netOnly, "fs_write_denied": netOnly, "tool_denied": netOnly,
		"unknown_op": wellFormed, "malformed_op": wellFormed, "max_ops": budgets, "max_wall": budgets,
	}
}

// Target returns the harness's Target of the proxy command starts,
// configured by the profile a --profile value names (LoadProfile),
// bounded by t. It fails for a command or profile that does not read.
// Where network namespaces are unavailable its sessions fail to start,
// with an error that wraps netns.ErrUnavailable: check netns.Supported
// first to say so before anything else.
func Target(command, profile string, t Timeouts) (door.Target, error) {
	p, err := LoadProfile(profile)
	if err != nil {
		return door.Target{}, err
	}
	if p.MCP != nil {
		return door.Target{}, fmt.Errorf("profile %s is an MCP fetch server's, not a proxy's: give --sut %s%s", p.Name, realsut.MCPPrefix, command)
	}
	return target(Prefix, command, profile, p, t)
}

// ServerTarget returns the harness's Target of the MCP server command
// starts, a fetch server described by p (its MCP set), which the
// --profile value profile named. Its name is "mcp:COMMAND"; it fails and
// needs namespaces as Target does.
func ServerTarget(command, profile string, p Profile, t Timeouts) (door.Target, error) {
	if p.MCP == nil {
		return door.Target{}, fmt.Errorf("profile %s is a proxy's, not an MCP fetch server's: give --sut %s%s", p.Name, Prefix, command)
	}
	return target(realsut.MCPPrefix, command, profile, p, t)
}

// target is the Target named prefix+command of the proxy or server
// command starts with p.
func target(prefix, command, profile string, p Profile, t Timeouts) (door.Target, error) {
	argv, err := proc.SplitWords(command)
	if err != nil {
		return door.Target{}, fmt.Errorf("%q: %v", command, err)
	}
	if len(argv) == 0 {
		return door.Target{}, fmt.Errorf("no command after %s", prefix)
	}
	flags, err := profileFlags(profile)
	if err != nil {
		return door.Target{}, err
	}
	anchored := proc.Anchored(argv)
	a := &adapter{argv: append(slices.Clone(p.Command), anchored...), profile: p, id: identify(command, profile, p), timeouts: t}
	tg := door.Target{Name: prefix + finding.CommandName(command, argv, anchored), Start: a.start, StartCounted: a.startCounted, Adapt: Adapt,
		NotApplicable: notApplicable(), KindsNotApplicable: kindsNotApplicable(), ConfirmHangs: true, Flags: flags, Asks: asks}
	switch {
	case len(p.Hosts) > 0:
		tg.Adapt = func(sc *scenario.Scenario) *scenario.Scenario { return AdaptFixed(sc, p.Hosts) }
	case !p.readsHosts():
		tg.Adapt = AdaptOpen
		tg.KindsNotApplicable["egress_denied"] = "the sandbox is given no hosts, so every host a scenario asks is granted"
	}
	if len(p.IgnoreHosts) > 0 {
		tg.Adapt = adaptIgnoring(tg.Adapt, p.ignored)
	}
	return tg, nil
}

// identity is how messages name a proxy or a server.
type identity struct {
	name string // in a finding's words: "proxy NAME: ...", "MCP server NAME: ..."
	note string // after the command line of one that did not start
}

// identify names the proxy or server command runs with p, which the
// --profile value profile chose: by its profile's name, or, with none
// given (the default profile, written for the example proxy), by its
// command, and then a proxy that does not start says that no profile was
// given.
func identify(command, profile string, p Profile) identity {
	what := "proxy "
	if p.MCP != nil {
		what = "MCP server "
	}
	if profile != "" {
		return identity{name: what + p.Name, note: "profile " + p.Name}
	}
	return identity{name: what + command, note: "profile " + p.Name + ", the default: give --profile for your proxy"}
}

// profileFlags are the flags that choose profile again in a replay: none
// for the default, a built-in profile by its name, a file by its
// absolute path (a replay may run from another directory).
func profileFlags(profile string) ([]string, error) {
	if profile == "" || profile == DefaultProfile {
		return nil, nil
	}
	if slices.ContainsFunc(BuiltinProfiles(), func(p Profile) bool { return p.Name == profile }) {
		return []string{"--profile", profile}, nil
	}
	abs, err := filepath.Abs(profile)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %v", profile, err)
	}
	return []string{"--profile", abs}, nil
}

// adapter starts sessions of one proxy command.
type adapter struct {
	argv     []string
	profile  Profile
	id       identity
	timeouts Timeouts

	probed   sync.Once
	probeErr error
	run      runState
}

func (a *adapter) start() (core.Factory, func() error, error) {
	s, err := a.newSession()
	if err != nil {
		return nil, nil, err
	}
	return s.factory, s.end, nil
}

// startCounted begins a session (door.Target's StartCounted): its
// proxies live in a directory of its own under the temporary directory,
// removed at its end. The first session starts the proxy once with no
// host granted and stops it: a command that does not start or never
// listens is a setup error before any check, not a total finding on
// every scenario.
func (a *adapter) startCounted() (core.Factory, func() error, func() door.Tally, error) {
	s, err := a.newSession()
	if err != nil {
		return nil, nil, nil, err
	}
	tally := func() door.Tally {
		t := s.tally.Read(s.skippedLines)
		t.Isolated = a.run.cached.Load()
		if a.run.reporter.CompareAndSwap(false, true) { // the first tally read: a session given up on is never read
			t.Stale = a.run.stale.Load()
		}
		return t
	}
	return s.factory, s.end, tally, nil
}

// newSession begins a session (startCounted, start). Its proxies live
// in a run directory of its own under proxiesDir (package realfs), locked
// while the session lives and removed at its end; one a session killed
// with the harness left is removed when the next session starts.
func (a *adapter) newSession() (*session, error) {
	dir, err := proxiesDir()
	if err != nil {
		return nil, err
	}
	rd, err := realfs.OpenRunDir(dir)
	if err != nil {
		return nil, fmt.Errorf("the proxies' directory: %w", err)
	}
	a.probed.Do(func() { a.probeErr = a.probe(rd.Path()) })
	if a.probeErr != nil {
		rd.Remove()
		return nil, a.probeErr
	}
	return &session{argv: a.argv, profile: a.profile, id: a.id, timeouts: a.timeouts, dir: rd.Path(), runDir: rd,
		tally: &door.Counter{CountsPassed: true}, run: &a.run, hostless: !a.profile.readsHosts()}, nil
}

// proxiesDir is the directory the proxy door's sessions make their run
// directories in: sbxfuzz/proxy-runs under the user's cache directory,
// never the shared temporary directory, where another user could make
// the directory first and swap the files a proxy reads.
func proxiesDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the proxies' files: %w", err)
	}
	return filepath.Join(base, "sbxfuzz", "proxy-runs"), nil
}

// probe starts the proxy once in dir, for no host, and stops it.
func (a *adapter) probe(dir string) error {
	px, err := start(a.argv, a.profile, nil, dir, a.timeouts, a.id.note)
	if err != nil {
		return err
	}
	px.close()
	return nil
}
