package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/sbxfuzz/sbxfuzz/internal/netns"
)

// netnsEnv is set to "1" in the environment of a child that runs in a
// network namespace answered by the world: a sandbox that fetches with its
// own HTTP client may do so only then, for outside the namespace its
// connections would reach the machine's network.
const netnsEnv = "SBXFUZZ_NETNS"

// netPorts are the ports a child's namespace listens on, on every
// address: HTTP's, where the world's routes are served, and HTTPS's, so
// that a connection a child opens for TLS is seen (and journaled as a
// fetch of the op's host) rather than refused unseen.
var netPorts = []uint16{80, 443}

// namespaces says, once per run, whether this machine can make network
// namespaces: nil, or why not (wrapping netns.ErrUnavailable).
var namespaces = sync.OnceValue(netns.Supported)

// warnings is where the one line on unavailable namespaces goes; a test
// replaces it.
var warnings io.Writer = os.Stderr

var warnOnce sync.Once

// warnNoNamespace says once per run, on one line, that children run
// outside a network namespace, and why: their own connections are not
// observed.
func warnNoNamespace(why error) {
	warnOnce.Do(func() {
		fmt.Fprintf(warnings, "sbxfuzz: exec: children run outside a network namespace, so the connections they open themselves are not observed (only world/fetch is): %v\n", why)
	})
}

// startFor starts a child for argv: in a network namespace if inNet and
// the machine can make one, else as start does (saying once why not).
// unavailable reports that namespaces are not to be tried again.
func startFor(argv []string, inNet bool) (c *child, unavailable bool, err error) {
	if !inNet {
		c, err = start(argv)
		return c, false, err
	}
	err = namespaces()
	if err == nil {
		c, err = startInNet(argv)
		if !errors.Is(err, netns.ErrUnavailable) {
			return c, false, err
		}
	}
	warnNoNamespace(err)
	c, err = start(argv)
	return c, true, err
}
