package netns

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The control socket is the SEQPACKET socket the helper reported on: once
// the command runs, the harness asks the helper over it for sockets made
// in the namespace. A request is "dial 4 SEQ" or "dial 6 SEQ"; its answer
// is "ok SEQ" with the socket, or "err SEQ why". SEQ lets the harness
// throw away the answer of a request it gave up on.

// serveControl answers the harness's requests on report until the harness
// closes its end, then exits: the namespace does not outlive its harness.
func serveControl(report *os.File) {
	fd := int(report.Fd())
	buf := make([]byte, 128)
	for {
		n, _, _, _, err := syscall.Recvmsg(fd, buf, nil, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n == 0 {
			os.Exit(1)
		}
		answerControl(fd, string(buf[:n]))
	}
}

// answerControl answers one request: a new TCP socket of the family it
// names, made here so that it belongs to the namespace's network.
func answerControl(fd int, req string) {
	f := strings.Fields(req)
	if len(f) != 3 || f[0] != "dial" {
		syscall.Sendmsg(fd, []byte("err 0 a request that does not read: "+strconv.Quote(req)), nil, nil, 0)
		return
	}
	family := syscall.AF_INET
	if f[1] == "6" {
		family = syscall.AF_INET6
	}
	sock, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		syscall.Sendmsg(fd, []byte("err "+f[2]+" "+err.Error()), nil, nil, 0)
		return
	}
	syscall.Sendmsg(fd, []byte("ok "+f[2]), syscall.UnixRights(sock), nil, 0)
	syscall.Close(sock)
}

// control is the harness's end of the control socket.
type control struct {
	mu   sync.Mutex // held from a request to its answer
	conn *net.UnixConn
	seq  int
}

// newControl takes over parent, once the helper has said the command runs.
func newControl(parent *os.File) (*control, error) {
	c, err := net.FileConn(parent)
	if err != nil {
		return nil, err
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, fmt.Errorf("netns: the control socket is a %T", c)
	}
	return &control{conn: uc}, nil
}

// close makes every pending and later request fail at once.
func (c *control) close() { c.conn.Close() }

// socket asks the helper for a TCP socket of family (4 or 6) made in the
// namespace, waiting no longer than ctx allows.
func (c *control) socket(ctx context.Context, family int) (*os.File, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conn.SetDeadline(time.Time{}) // whatever the last request left
	if d, ok := ctx.Deadline(); ok {
		c.conn.SetDeadline(d)
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		c.conn.SetDeadline(time.Unix(1, 0))
		close(fired)
	})
	defer func() {
		if !stop() {
			<-fired // so that it cannot cut the next request short
		}
	}()
	c.seq++
	want := strconv.Itoa(c.seq)
	if _, err := c.conn.Write([]byte(fmt.Sprintf("dial %d %s", family, want))); err != nil {
		return nil, c.failed(ctx, err)
	}
	for {
		words, fds, err := c.read()
		if err != nil {
			return nil, c.failed(ctx, err)
		}
		if len(words) < 2 || words[1] != want {
			closeFds(fds) // the answer to a request given up on
			continue
		}
		return socketOf(words, fds)
	}
}

// read reads one answer: its words and the descriptors it carries.
func (c *control) read() (words []string, fds []int, err error) {
	buf, oob := make([]byte, 512), make([]byte, syscall.CmsgSpace(4))
	n, oobn, _, _, err := c.conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, nil, err
	}
	if n == 0 {
		return nil, nil, ErrGone
	}
	if oobn > 0 {
		if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, m := range msgs {
				got, _ := syscall.ParseUnixRights(&m)
				fds = append(fds, got...)
			}
		}
	}
	return strings.SplitN(string(buf[:n]), " ", 3), fds, nil
}

// failed is err in the words of Dial: the context's error if it ended the
// wait, the namespace's end if its init exited.
func (c *control) failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return context.DeadlineExceeded // ctx's deadline, a moment before ctx says so
	}
	if errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) {
		return ErrGone
	}
	return err
}

// socketOf is the socket an answer carries, or the helper's words on why
// there is none.
func socketOf(words []string, fds []int) (*os.File, error) {
	if words[0] != "ok" || len(fds) != 1 {
		closeFds(fds)
		why := "an answer without a socket"
		if len(words) == 3 {
			why = words[2]
		}
		return nil, fmt.Errorf("netns: making a socket in the namespace: %s", why)
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		return nil, err
	}
	return os.NewFile(uintptr(fds[0]), "netns-dial"), nil
}

func closeFds(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// Dial opens a TCP connection from inside the namespace to address, an IP
// address and port ("127.0.0.1:3128", "[::1]:80"; no name: names are the
// namespace's to resolve), as a program in it would: it is how the harness
// reaches a server the command listens with. network is "tcp", "tcp4" or
// "tcp6". The connection is not among Records, for it reaches the
// command, not the harness's listeners (unless address is one of theirs).
// ctx bounds the whole dial; after Close, or once the command has exited,
// Dial returns an error at once.
func (s *Sandbox) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	to, family, err := dialTarget(network, address)
	if err != nil {
		return nil, err
	}
	if s.ctl == nil || s.closed.Load() {
		return nil, &net.OpError{Op: "dial", Net: network, Err: ErrGone}
	}
	f, err := s.ctl.socket(ctx, family)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	defer f.Close()
	if err := connect(ctx, f, to); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: net.TCPAddrFromAddrPort(to), Err: err}
	}
	return net.FileConn(f)
}

// dialTarget reads Dial's address, and the family of the socket that
// reaches it.
func dialTarget(network, address string) (netip.AddrPort, int, error) {
	to, err := netip.ParseAddrPort(address)
	if err != nil {
		return netip.AddrPort{}, 0, fmt.Errorf("netns: Dial needs an IP address and a port: %w", err)
	}
	family := 6
	if to.Addr().Is4() {
		family = 4
	}
	switch {
	case network == "tcp":
	case network == "tcp4" && family == 4, network == "tcp6" && family == 6:
	default:
		return netip.AddrPort{}, 0, fmt.Errorf("netns: Dial %s %s: not a TCP network of the address's family", network, address)
	}
	return to, family, nil
}

// connect connects the non-blocking socket f to to, waiting for the
// connection no longer than ctx allows.
func connect(ctx context.Context, f *os.File, to netip.AddrPort) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var sa syscall.Sockaddr = &syscall.SockaddrInet6{Port: int(to.Port()), Addr: to.Addr().As16()}
	if to.Addr().Is4() {
		sa = &syscall.SockaddrInet4{Port: int(to.Port()), Addr: to.Addr().As4()}
	}
	var cerr error
	raw.Control(func(fd uintptr) { cerr = syscall.Connect(int(fd), sa) })
	if cerr != syscall.EINPROGRESS {
		return cerr
	}
	if d, ok := ctx.Deadline(); ok {
		f.SetWriteDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	werr := raw.Write(func(fd uintptr) bool {
		n, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_ERROR)
		if err != nil {
			cerr = err
			return true
		}
		if n == 0 {
			// Writable without an error: connected, unless the wait has
			// not started yet (the first call comes before the poller's).
			_, perr := syscall.Getpeername(int(fd))
			if perr == syscall.ENOTCONN {
				return false
			}
			cerr = perr
			return true
		}
		cerr = syscall.Errno(n)
		return true
	})
	if werr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return werr
	}
	return cerr
}
