package netns

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// maxOpenConns bounds the connections to the namespace's listeners open at
// once: each holds a descriptor and a goroutine of the harness, which a
// command that opens connections and keeps them would otherwise exhaust.
// A connection past it is recorded, as any, and closed at once. It is far
// above what a program fetching a scenario's hosts holds open, and small
// enough for several namespaces to stay within the harness's descriptors.
var maxOpenConns = 256

// connWait bounds how long a connection may take to send a request's
// header, and how long it may sit idle between requests, before the
// listener closes it, so that a command's abandoned connections give back
// their place under maxOpenConns. The listeners do not know the op
// timeout of the harness that runs them: it is far longer than any op
// timeout a campaign sets, so that it never cuts a request a command is
// still sending, however busy the machine.
var connWait = 5 * time.Minute

// listeners answers the namespace from the harness's process: the HTTP
// servers over the TCP sockets the helper bound, the DNS server over its
// UDP ones, and the records of what reached them.
type listeners struct {
	servers   []*http.Server
	raw       []rawListener
	dns       []net.PacketConn
	wg        sync.WaitGroup
	accepting sync.Mutex // held while connections are taken and recorded
	stopped   bool       // the listening sockets are closed; under accepting
	wake      *os.File   // closed to stop acceptLoop
	wakeRead  *os.File

	mu      sync.Mutex
	records []Record
	conns   int
	open    int // connections queued or served, not yet closed
}

// serve answers over files, in the order the helper sends them: per port
// its IPv4 and IPv6 listener, then the two DNS sockets.
func serve(files []*os.File, n Network) (*listeners, error) {
	l := &listeners{}
	if len(files) != 2*len(n.Ports)+2 {
		closeAll(files)
		return nil, fmt.Errorf("netns: the helper sent %d sockets, not %d", len(files), 2*len(n.Ports)+2)
	}
	tcp, udp := files[:2*len(n.Ports)], files[2*len(n.Ports):]
	defer closeAll(udp) // the DNS servers hold duplicates; the listeners keep theirs
	for _, f := range udp {
		c, err := net.FilePacketConn(f)
		if err != nil {
			l.close()
			return nil, err
		}
		l.dns = append(l.dns, c)
		l.wg.Add(1)
		go l.answerDNS(c, n.Resolve)
	}
	for i, f := range tcp {
		if err := l.listen(f, n.Handler); err != nil {
			closeAll(tcp[i:])
			l.close()
			return nil, err
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		l.close()
		return nil, err
	}
	l.wake, l.wakeRead = w, r
	l.wg.Add(1)
	go l.acceptLoop(r)
	return l, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// answerDNS answers every query on c, one at a time, so that resolve sees
// the queries of one socket in the order they came.
func (l *listeners) answerDNS(c net.PacketConn, resolve func(string, Family) []netip.Addr) {
	defer l.wg.Done()
	buf := make([]byte, 1500)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			return // closed
		}
		if reply, err := answer(buf[:n], resolve); err == nil {
			c.WriteTo(reply, from)
		}
	}
}

// close stops every server, closing the connections they hold, and waits
// for their goroutines.
func (l *listeners) close() {
	l.sync()
	if l.wake != nil {
		l.wake.Close() // acceptLoop sees its end readable
	}
	for _, r := range l.raw {
		r.q.Close()
	}
	for _, srv := range l.servers {
		srv.Close()
	}
	for _, c := range l.dns {
		c.Close()
	}
	l.wg.Wait()
	l.accepting.Lock() // a Records after Close must not accept on closed descriptors
	l.stopped = true
	for _, r := range l.raw {
		r.file.Close()
		r.q.drain()
	}
	l.accepting.Unlock()
	if l.wakeRead != nil {
		l.wakeRead.Close()
	}
}

func (l *listeners) add(r Record) Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Conn == 0 {
		l.conns++
		r.Conn = l.conns
	}
	l.records = append(l.records, r)
	return r
}

// snapshot returns the records so far without copying them: records are
// only ever appended, and the slice's capacity ends at its length, so that
// neither side's appends reach the other's elements. A harness calls it
// after every op of a long campaign; a copy would grow with the campaign.
func (l *listeners) snapshot() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.records[:len(l.records):len(l.records)]
}

// take returns the records and forgets them; the slice returned is the
// caller's, for later records go in a new one.
func (l *listeners) take() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	recs := l.records
	l.records = nil
	return recs
}

// listen serves HTTP over the listening socket f: acceptLoop and sync
// take its connections, recording them, and hand them to an http.Server
// through a queue.
func (l *listeners) listen(f *os.File, h http.Handler) error {
	fd := int(f.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		return err
	}
	q := &queue{conns: make(chan net.Conn, 64), closed: make(chan struct{})}
	srv := &http.Server{Handler: l.recording(h), ConnContext: connContext, ReadHeaderTimeout: connWait, IdleTimeout: connWait}
	l.servers = append(l.servers, srv)
	l.raw = append(l.raw, rawListener{file: f, fd: fd, q: q})
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		srv.Serve(q)
	}()
	return nil
}

// pollFd is struct pollfd of poll(2).
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1

// acceptLoop waits until a listening socket has a connection, or wake is
// readable (then it returns), and syncs. The sockets are polled, not
// accepted from in a blocking call, so that sync never misses a
// connection taken from a socket but not yet recorded.
func (l *listeners) acceptLoop(wake *os.File) {
	defer l.wg.Done()
	fds := make([]pollFd, 0, len(l.raw)+1)
	for _, r := range l.raw {
		fds = append(fds, pollFd{fd: int32(r.fd), events: pollIn})
	}
	fds = append(fds, pollFd{fd: int32(wake.Fd()), events: pollIn})
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), 0, 0, 0, 0)
		if e != 0 && e != syscall.EINTR {
			return
		}
		if fds[len(fds)-1].revents != 0 {
			return
		}
		l.sync()
	}
}

// admit records the connection nfd and queues it for its server, or
// closes it if maxOpenConns are open already.
func (l *listeners) admit(nfd int, q *queue) {
	f := os.NewFile(uintptr(nfd), "conn")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return
	}
	rec := l.add(Record{Local: localOf(c)})
	if !l.reserve() {
		c.Close()
		return
	}
	nc := &numberedConn{Conn: c, rec: rec, release: l.release}
	select {
	case q.conns <- nc:
	case <-q.closed:
		nc.Close()
	}
}

// reserve counts one more connection open, unless maxOpenConns are.
func (l *listeners) reserve() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= maxOpenConns {
		return false
	}
	l.open++
	return true
}

// release counts one connection fewer open.
func (l *listeners) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
}

// openConns is how many connections are open.
func (l *listeners) openConns() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// sync records every connection the kernel has completed so far: those
// waiting on a socket are accepted now, in the order they came.
func (l *listeners) sync() {
	l.accepting.Lock()
	defer l.accepting.Unlock()
	if l.stopped {
		return
	}
	for _, r := range l.raw {
		for {
			nfd, _, err := syscall.Accept4(r.fd, syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC)
			if err == syscall.EINTR || err == syscall.ECONNABORTED {
				continue
			}
			if err != nil {
				break
			}
			l.admit(nfd, r.q)
		}
	}
}

// rawListener is a listening socket and the queue of its connections.
type rawListener struct {
	file *os.File
	fd   int
	q    *queue
}

// queue is the net.Listener an http.Server serves: the connections
// accept recorded, in order.
type queue struct {
	conns     chan net.Conn
	closed    chan struct{}
	closeOnce sync.Once
}

func (q *queue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.closed:
		return nil, net.ErrClosed
	}
}

func (q *queue) Close() error {
	q.closeOnce.Do(func() { close(q.closed) })
	return nil
}

// drain closes the connections queued that no server took, once nothing
// queues more.
func (q *queue) drain() {
	for {
		select {
		case c := <-q.conns:
			c.Close()
		default:
			return
		}
	}
}

// Addr is an address of no family: the queue's connections come from
// sockets on every address.
func (q *queue) Addr() net.Addr { return &net.TCPAddr{} }

// numberedConn carries the record of its accepting to its requests', and
// gives back its place among the connections open when it closes.
type numberedConn struct {
	net.Conn
	rec       Record
	release   func()
	closeOnce sync.Once
}

func (c *numberedConn) Close() error {
	c.closeOnce.Do(c.release)
	return c.Conn.Close()
}

type connKey struct{}

func connContext(ctx context.Context, c net.Conn) context.Context {
	if nc, ok := c.(*numberedConn); ok {
		return context.WithValue(ctx, connKey{}, nc.rec)
	}
	return ctx
}

// recording records each request, then lets h answer it (404 if h is nil).
func (l *listeners) recording(h http.Handler) http.Handler {
	if h == nil {
		h = http.NotFoundHandler()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _ := r.Context().Value(connKey{}).(Record)
		l.add(Record{Conn: conn.Conn, Local: conn.Local, Method: r.Method, Host: r.Host, Target: r.RequestURI})
		h.ServeHTTP(w, r)
	})
}

// LocalAddr returns the address and port a request served in a Sandbox
// was aimed at, unmapped; the zero AddrPort for any other request.
func LocalAddr(r *http.Request) netip.AddrPort {
	conn, _ := r.Context().Value(connKey{}).(Record)
	return conn.Local
}

// localOf is the address c was aimed at: an IPv4-mapped address is the
// IPv4 address it spells, as a guard must judge it.
func localOf(c net.Conn) netip.AddrPort {
	a, ok := c.LocalAddr().(*net.TCPAddr)
	if !ok {
		return netip.AddrPort{}
	}
	ap := a.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}
