package sbxnet

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"syscall"
)

// errClosed is the error of a dial after Close.
var errClosed = errors.New("sbxnet: network closed")

// DialContext has the shape of net.Dialer.DialContext, for
// http.Transport.DialContext: it connects to address, "host:port", over
// network "tcp", "tcp4" or "tcp6". A host that is an IP address is dialled
// as it is, asking the world nothing; any other host is a name, resolved
// first (journaled). The connection reaches the in-memory HTTP endpoint of
// that address, whatever the port; each request on it is journaled as
// "fetch h a path". A cancelled ctx answers its error and asks nothing.
func (n *Network) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	a, name, err := n.target(ctx, network, address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	return n.connect(network, a, name)
}

// DialControl returns a function of the shape of DialContext for a guard
// written as Go's guards are, as the Control hook of a net.Dialer
// (net.Dialer.Control: code.dny.dev/ssrf, GoToSocial's sanitizer, Ory's
// httpx): it resolves and connects as DialContext does, but first hands
// control the network and address the connection is about to be made to,
// as net.Dialer does: "tcp4" or "tcp6" by the address's family, and
// "ip:port", an IPv4-mapped address as the IPv4 address it carries. An
// error from control refuses the connection, and is the dial's error.
//
// No socket exists, so control is handed a syscall.RawConn whose methods
// all fail with errors.ErrUnsupported: a guard that reads the socket
// itself cannot be judged in memory.
func (n *Network) DialControl(control func(network, address string, c syscall.RawConn) error) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		a, name, err := n.target(ctx, network, address)
		if err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Err: err}
		}
		_, port, _ := net.SplitHostPort(address) // target parsed it
		p, _ := strconv.ParseUint(port, 10, 16)
		to := netip.AddrPortFrom(a.Unmap(), uint16(p))
		family := "tcp4"
		if to.Addr().Is6() {
			family = "tcp6"
		}
		if err := control(family, to.String(), noSocket{}); err != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Addr: net.TCPAddrFromAddrPort(to), Err: err}
		}
		return n.connect(network, to.Addr(), name)
	}
}

// noSocket is the syscall.RawConn DialControl hands a Control hook: there
// is no socket to reach.
type noSocket struct{}

func (noSocket) Control(func(fd uintptr)) error    { return errors.ErrUnsupported }
func (noSocket) Read(func(fd uintptr) bool) error  { return errors.ErrUnsupported }
func (noSocket) Write(func(fd uintptr) bool) error { return errors.ErrUnsupported }

// connect opens a connection to the in-memory endpoint of a, dialled by
// name ("" for an address).
func (n *Network) connect(network string, a netip.Addr, name string) (net.Conn, error) {
	client, server := net.Pipe()
	l := n.track(server, a, name)
	if l == nil {
		client.Close()
		server.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Err: errClosed}
	}
	served := make(chan struct{})
	go n.serve(server, l, served)
	return &clientConn{Conn: client, served: served}, nil
}

// clientConn is the sandbox's end of a connection. Its Close returns once
// the endpoint has journaled what the connection did: a connection that
// sent no request is journaled when it ends (journalBare), and a sandbox
// that connects and closes within an op must find it in that op's journal.
type clientConn struct {
	net.Conn
	served <-chan struct{} // closed when the endpoint is done with the connection
}

// Close closes the connection and waits until the endpoint is done with it.
func (c *clientConn) Close() error {
	err := c.Conn.Close()
	<-c.served
	return err
}

// target is the address a dial connects to: address's host parsed, or
// resolved when it is a name, and the name ("" for an address).
func (n *Network) target(ctx context.Context, network, address string) (netip.Addr, string, error) {
	if err := ctx.Err(); err != nil {
		return netip.Addr{}, "", err
	}
	if network != "tcp" && network != "tcp4" && network != "tcp6" {
		return netip.Addr{}, "", net.UnknownNetworkError(network)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return netip.Addr{}, "", err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return netip.Addr{}, "", &net.AddrError{Err: "invalid port", Addr: address}
	}
	a, err := netip.ParseAddr(host)
	name := ""
	if err != nil {
		// A dial of one family looks the name up in that family alone.
		a, name = n.resolveFamily("ip"+network[len("tcp"):], host), host
	}
	if !a.IsValid() || !familyFits(network, a) {
		return netip.Addr{}, "", &net.AddrError{Err: "no suitable address", Addr: address}
	}
	return a, name, nil
}
