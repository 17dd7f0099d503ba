package httpguard

import (
	"context"
	"net"
	"net/netip"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/examples/gosandbox"
)

// The deliberate defects, for showing what sbxfuzz finds in an egress
// guard. HTTPGUARD_DEFECT in the environment when New is called picks one:
//
//   - name: the guard judges the host name (an IP literal, a well-known
//     internal name) but not the address, and dials by name, so that the
//     dialer resolves on its own: a name whose dns line answers an
//     internal address gets through.
//   - rebind: the guard resolves and checks the address, then resolves
//     again and dials the second answer: a dns line that answers a public
//     address, then an internal one (DNS rebinding), gets through.
//
// With the variable unset (or any other value) the sandbox is correct.
// Delete this file, the defect field and the two marked lines in
// guardedDial when you copy the package.
const (
	defectEnv    = "HTTPGUARD_DEFECT"
	defectName   = "name"
	defectRebind = "rebind"
)

// dialByName is the name defect's dial: a check of the name alone, then a
// dial by name. Do not copy it.
func (gd *guard) dialByName(ctx context.Context, network, host, port string) (net.Conn, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && gosandbox.IsInternal(a) {
		return nil, errInternal
	}
	if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") ||
		h == "metadata.google.internal" || h == "metadata" || h == "instance-data" {
		return nil, errInternal
	}
	return gd.net.DialContext(ctx, network, net.JoinHostPort(host, port))
}
