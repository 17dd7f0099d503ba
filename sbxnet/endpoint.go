package sbxnet

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// serve answers the one request of the connection l, whose endpoint's
// end is c, and closes it, as the network namespace does (SPEC §14): a
// client that kept the connection for its next fetch would send it to an
// address resolved for another, in another op maybe, asking no one. A
// connection that ends with no request journaled (a TLS hello, bytes that
// are no HTTP, a connect and close), or is left open without one at the
// end of its op (endOp), is journaled as a fetch all the same
// (journalBare): it reached its address. served is closed once the
// connection's journal is written.
func (n *Network) serve(c net.Conn, l *link, served chan<- struct{}) {
	defer n.untrack(c)
	defer close(served)
	limit := &io.LimitedReader{R: c, N: maxHeaderBytes}
	r := bufio.NewReader(limit)
	if first, err := r.Peek(1); err == nil && first[0] == tlsHandshake {
		n.journalBare(l)
		return // the world answers no TLS, as the namespace does not
	}
	req, err := http.ReadRequest(r)
	if err != nil {
		n.journalBare(l)
		refuseUnread(c, limit, err)
		return
	}
	// Journaled as soon as its head is read, before its body, which the
	// client may send in a later op or never.
	rp := n.answerRequest(req, l)
	limit.N = maxBodyBytes + 1
	if status := refusal(req); status != 0 {
		rp = reply{status: status}
	}
	writeResponse(c, rp, req.Method)
}

// answerRequest journals the request req of connection l and answers it
// (answer), settling l as one that sent a request, with the lock that
// keeps the op's end (endOp) from passing it between the two. A request
// read after its op's end journaled l as one that sent none is no doing
// of the op under way: it is answered 503, journaling nothing, as the
// namespace answers a late request. (A client that writes its request and
// returns without reading the answer may be read only after its op
// ended: its op journals its connection, as a fetch of "/".)
func (n *Network) answerRequest(req *http.Request, l *link) reply {
	n.settling.Lock()
	defer n.settling.Unlock()
	late := l.settled
	l.settled = true
	if late {
		return reply{status: http.StatusServiceUnavailable}
	}
	return n.answer(req, l.a)
}

// tlsHandshake is the first byte of a TLS record that opens a handshake:
// a TLS client speaks first, and waits for an answer the world never gives.
const tlsHandshake = 0x16

// refuseUnread answers a request that could not be read: 431 when it ran
// past the header bound, 400 when it was malformed, nothing when the
// client simply closed the connection.
func refuseUnread(c net.Conn, limit *io.LimitedReader, err error) {
	switch {
	case limit.N <= 0:
		writeResponse(c, reply{status: http.StatusRequestHeaderFieldsTooLarge}, "")
	case err != io.EOF && err != io.ErrUnexpectedEOF && !isClosed(err):
		writeResponse(c, reply{status: http.StatusBadRequest}, "")
	}
}

// isClosed reports an error of a connection closed under the reader.
func isClosed(err error) bool { return err == io.ErrClosedPipe }

// refusal is the status of a request the endpoint refuses, though it
// journals it as any other, or 0: 405 for a CONNECT, which asks for a
// tunnel this endpoint is not; 413 for a body larger than maxBodyBytes; 400
// for one that broke off. Any other body is read and discarded.
func refusal(req *http.Request) int {
	if req.Method == http.MethodConnect {
		return http.StatusMethodNotAllowed
	}
	if req.ContentLength > maxBodyBytes {
		return http.StatusRequestEntityTooLarge
	}
	got, err := io.Copy(io.Discard, io.LimitReader(req.Body, maxBodyBytes+1))
	switch {
	case got > maxBodyBytes:
		return http.StatusRequestEntityTooLarge
	case err != nil:
		return http.StatusBadRequest
	}
	return 0
}

// reply is a response the endpoint writes.
type reply struct {
	status   int
	body     string
	location string // a 302's Location
}

// answer is the world's answer to req on a connection dialled to a: the
// route of the Host the request names and its path (journaled as a
// fetch), 302 Found for a redirect route (its URL as Location and as
// body: the client decides whether to follow, and a request that follows
// is one more fetch), or 404. A request with no Host (HTTP/1.0 allows
// it) is for the host whose answer a was (hostAnswered). A CONNECT is
// journaled as a fetch of "/" of the host it names, as the namespace
// journals it: the world opens no tunnel, but the connection reached a.
func (n *Network) answer(req *http.Request, a netip.Addr) reply {
	path := spec.TargetPath(req.RequestURI)
	if req.Method == http.MethodConnect {
		path = "/"
	}
	host := n.requestHost(req.Host)
	if host == "" {
		host = n.hostAnswered(a)
	}
	n.resolveLiteral(host)
	body, ok := n.fetch(host, a, path)
	if !ok {
		return reply{status: http.StatusNotFound, body: "404 page not found\n"}
	}
	if url, redirect := n.location(host, path); redirect {
		return reply{status: http.StatusFound, body: body, location: url}
	}
	return reply{status: http.StatusOK, body: body}
}

// worldHeader is the header every answer of the world carries, as the
// namespace's do (networld.Header, SPEC §14).
const worldHeader = "X-Sbxfuzz-World: 1\r\n"

// writeResponse writes an HTTP/1.1 response of r (no body for HEAD),
// saying "Connection: close": the endpoint closes after every answer.
func writeResponse(w io.Writer, r reply, method string) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("HTTP/1.1 " + strconv.Itoa(r.status) + " " + http.StatusText(r.status) + "\r\n")
	bw.WriteString(worldHeader)
	bw.WriteString("Content-Type: application/octet-stream\r\n")
	bw.WriteString("Content-Length: " + strconv.Itoa(len(r.body)) + "\r\n")
	if r.status == http.StatusFound {
		bw.WriteString("Location: " + spec.Location(r.location) + "\r\n")
	}
	bw.WriteString("Connection: close\r\n")
	bw.WriteString("\r\n")
	if method != http.MethodHead {
		bw.WriteString(r.body)
	}
	return bw.Flush()
}
