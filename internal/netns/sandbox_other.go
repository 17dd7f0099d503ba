//go:build !linux

package netns

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"runtime"
)

var errNotLinux = fmt.Errorf("%w: %s has no Linux user and network namespaces", ErrUnavailable, runtime.GOOS)

// Sandbox is a command running in a namespace of its own; on this system
// there is none.
type Sandbox struct{}

// Start returns an error that wraps ErrUnavailable: only Linux has the
// namespaces.
func Start(Command, Network) (*Sandbox, error) { return nil, errNotLinux }

// Run returns an error that wraps ErrUnavailable: only Linux has the
// namespaces.
func Run(Command, Network) (Result, []Record, error) { return Result{}, nil, errNotLinux }

// Supported returns an error that wraps ErrUnavailable: only Linux has the
// namespaces.
func Supported() error { return errNotLinux }

// Wait returns the zero Result.
func (*Sandbox) Wait() Result { return Result{} }

// Records returns nil.
func (*Sandbox) Records() []Record { return nil }

// TakeRecords returns nil.
func (*Sandbox) TakeRecords() []Record { return nil }

// Dial returns an error that wraps ErrUnavailable: there is no namespace
// to dial from.
func (*Sandbox) Dial(context.Context, string, string) (net.Conn, error) { return nil, errNotLinux }

// Pid returns 0: there is no namespace.
func (*Sandbox) Pid() int { return 0 }

// Close does nothing.
func (*Sandbox) Close() error { return nil }

// LocalAddr returns the zero AddrPort: no request is served here.
func LocalAddr(*http.Request) netip.AddrPort { return netip.AddrPort{} }

// Listening returns an error that wraps ErrUnavailable.
func (*Sandbox) Listening() ([]netip.AddrPort, error) { return nil, errNotLinux }

// alive reports true: with no namespaces here, no directory of TempDir's
// is left by a command in one, and none is swept.
func alive(int) bool { return true }
