package proxysut

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/finding"
	"github.com/sbxfuzz/sbxfuzz/internal/mcp"
	"github.com/sbxfuzz/sbxfuzz/internal/networld"
)

// serverPorts are the ports an MCP server's namespace listens on: HTTP's,
// where the world answers, and HTTPS's, so that a server that upgrades
// the URL it is given to https is seen connecting (journaled as a fetch
// of the op's host) rather than refused unseen.
var serverPorts = []uint16{worldPort, 443}

// serverProfile is the mcp package's profile of p's server, with the
// environment rendered for it (env, "K=V").
func (p Profile) serverProfile(env []string) (mcp.Profile, error) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return mcp.NewFetchProfile(p.Name, mcp.Tool{Name: p.MCP.Tool, Path: p.MCP.URL, Args: p.MCP.Args}, vars)
}

// startServer starts the MCP server argv runs, with p's arguments, for
// hosts, in a new directory under parent, in a network namespace of its
// own answered by a new binding, and waits for its handshake (at most
// t's start, the mcp package's default when unset: a node server starts
// slower than a proxy). Its calls are bounded by closeWaits op timeouts,
// as a proxy's fetches are, so that the oracle's watchdog gives up on a
// hung one first.
func startServer(argv []string, p Profile, hosts []string, parent string, t Timeouts, note string) (*proxy, error) {
	dir, err := os.MkdirTemp(parent, "server-")
	if err != nil {
		return nil, err
	}
	l, err := prepareDir(dir, p, hosts)
	if err == nil {
		var mp mcp.Profile
		if mp, err = p.serverProfile(l.env); err == nil {
			return launchServer(append(slices.Clone(argv), l.args...), mp, p, hosts, dir, l.tmp, t, note)
		}
	}
	removeDirs(dir, l.tmp)
	return nil, err
}

// launchServer starts the server of argv and mp, p's, with its HOME in
// dir (removed if it fails, and tmp, its {{tmp}}, with it), and its
// working directory too when p says cwd, for hosts.
func launchServer(argv []string, mp mcp.Profile, p Profile, hosts []string, dir, tmp string, t Timeouts, note string) (*proxy, error) {
	bind := networld.New()
	bind.Ignore(p.ignored)
	n := bind.Network(serverPorts...)
	// It runs in the harness's working directory, as a proxy does (a
	// relative command names a file there), unless its profile says cwd.
	root := ""
	if p.Cwd {
		root = dir
	}
	srv, err := mcp.Start(mcp.Config{Command: argv, Profile: mp, Home: dir, Root: root, Net: &n, Timeout: closeWaits * t.op(), StartTimeout: t.Start})
	if err != nil {
		removeDirs(dir, tmp)
		return nil, fmt.Errorf("%w (ran: %s; %s)", err, finding.CommandLine(argv), note)
	}
	bind.Attach(srv.Namespace().TakeRecords)
	return &proxy{key: hostsKey(hosts), sb: srv.Namespace(), bind: bind, srv: srv, dir: dir, tmp: tmp, exited: srv.Exited()}, nil
}

// askServer asks the MCP server for op's fetch with its fetch tool, while
// the binding journals what it does. Its answer is read from the binding
// once the op has ended (servedAnswer): a fetch tool answers in words of
// its own, often converted (HTML to markdown).
func (b *bridge) askServer(op core.Op) error {
	b.px.bind.BeginOp(op)
	b.px.ops++
	res, err := b.px.srv.Fetch(serverURL(op))
	// An error said in a successful result, by the profile's refusals,
	// is an error all the same (LangChain's WebBrowser returns an
	// error's text): not an answer from a cache of the server's own.
	b.toolError, b.toolText = res.IsError || b.s.profile.refusal(res.Text), res.Text
	return err
}

// serverURL is the URL a fetch server is asked for op's fetch.
func serverURL(op core.Op) string { return "http://" + urlHost(op.Args[0]) + op.Args[1] }

// servedAnswer is a fetch server's answer: what the world gave a request
// for the op's host, whatever the server made of it (for a redirect,
// the URL, which Run takes from served); a server the world never
// answered refused, whatever it said.
func servedAnswer(served networld.Served) answer {
	switch {
	case !served.Reached:
		return answer{closed: true}
	case !served.Found:
		return answer{world: true, status: http.StatusNotFound}
	}
	return answer{world: true, status: http.StatusOK, body: served.Body}
}
