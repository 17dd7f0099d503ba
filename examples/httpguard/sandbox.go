// Package httpguard is a sandbox for an AI agent's tool calls whose
// net_fetch is a real net/http client with an egress guard in its dialer,
// judged by sbxfuzz over the world's network in memory (package sbxnet,
// SPEC §14). The guard resolves the granted host once, refuses an internal
// address (SPEC §6) and dials that very address; every other step of an
// op is examples/gosandbox's (gosandbox.NewWithEgress). Two deliberate
// defects, off by default: see defect.go.
package httpguard

import (
	"context"
	"net/http"
	"os"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/examples/gosandbox"
	"github.com/sbxfuzz/sbxfuzz/sbxnet"
)

// sandbox is gosandbox's sandbox with the guard as its way out, and the
// guard's Close.
type sandbox struct {
	core.Sandbox
	*guard
}

// guard is net_fetch's way out: a real HTTP transport over the world's
// network, whose dialer checks the address it dials.
type guard struct {
	net *sbxnet.Network // the world's network: the guard resolves and dials through it
	// transport is a real HTTP transport whose dialer is the guard. It is
	// asked directly, not through an http.Client: a client follows a
	// redirect (a fetch nobody checked against the grant), and even told
	// not to (CheckRedirect) it parses the Location and fails on one that
	// is no URL, when the redirect's answer is this fetch's whole answer.
	transport *http.Transport
	ctx       context.Context // cancelled by Close, so that a request in flight returns
	cancel    context.CancelFunc

	defect string // HTTPGUARD_DEFECT: see defect.go
}

// New builds a sandbox over w that enforces g. It reads the clock once, for
// t0, and HTTPGUARD_DEFECT once. It never fails; the error is there for
// sandboxes that check more at construction. The sandbox is an io.Closer:
// Close ends what its HTTP client left open.
func New(g core.Grant, w core.World) (core.Sandbox, error) {
	return newSandbox(g, w, os.Getenv(defectEnv)), nil
}

func newSandbox(g core.Grant, w core.World, defect string) *sandbox {
	gd := &guard{net: sbxnet.New(w), defect: defect}
	gd.ctx, gd.cancel = context.WithCancel(context.Background())
	gd.transport = &http.Transport{
		Proxy:       nil, // the guard must see every connection: no proxy from the environment
		DialContext: gd.guardedDial,
		// A connection per request: a pooled one would carry the next
		// request to an address checked for another host.
		DisableKeepAlives:  true,
		DisableCompression: true, // the body as the world holds it
	}
	return &sandbox{Sandbox: gosandbox.NewWithEgress(g, w, gd.egress), guard: gd}
}

// Close cancels a request in flight and closes every connection; it
// returns once nothing the client started is left running.
func (gd *guard) Close() error {
	gd.cancel()
	gd.transport.CloseIdleConnections()
	return gd.net.Close()
}
