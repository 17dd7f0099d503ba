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

// serve answers the requests of one connection, dialled to a, until the
// client closes it, asks to close it, or sends what the endpoint refuses.
func (n *Network) serve(c net.Conn, a netip.Addr) {
	defer n.untrack(c)
	limit := &io.LimitedReader{R: c}
	r := bufio.NewReader(limit)
	for {
		limit.N = maxHeaderBytes
		req, err := http.ReadRequest(r)
		if err != nil {
			refuseUnread(c, limit, err)
			return
		}
		limit.N = maxBodyBytes + 1
		if status := refusal(req); status != 0 {
			writeResponse(c, reply{status: status}, req.Method, true)
			return
		}
		rp := n.answer(req, a)
		done := req.Close || !req.ProtoAtLeast(1, 1)
		if writeResponse(c, rp, req.Method, done) != nil || done {
			return
		}
	}
}

// refuseUnread answers a request that could not be read: 431 when it ran
// past the header bound, 400 when it was malformed, nothing when the
// client simply closed the connection.
func refuseUnread(c net.Conn, limit *io.LimitedReader, err error) {
	switch {
	case limit.N <= 0:
		writeResponse(c, reply{status: http.StatusRequestHeaderFieldsTooLarge}, "", true)
	case err != io.EOF && err != io.ErrUnexpectedEOF && !isClosed(err):
		writeResponse(c, reply{status: http.StatusBadRequest}, "", true)
	}
}

// isClosed reports an error of a connection closed under the reader.
func isClosed(err error) bool { return err == io.ErrClosedPipe }

// refusal is the status of a request the endpoint refuses, and closes the
// connection after, or 0: 405 for a CONNECT, which asks for a tunnel this
// endpoint is not; 413 for a body larger than maxBodyBytes; 400 for one
// that broke off. Any other body is read and discarded.
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
// is one more fetch), or 404.
func (n *Network) answer(req *http.Request, a netip.Addr) reply {
	path := routePath(req)
	host := n.requestHost(req.Host)
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

// routePath is the path a request asks for: the target's path
// percent-decoded, with "?" and the raw query when it has one.
func routePath(req *http.Request) string {
	p := req.URL.Path
	if req.URL.RawQuery != "" || req.URL.ForceQuery {
		p += "?" + req.URL.RawQuery
	}
	return p
}

// worldHeader is the header every answer of the world carries, as the
// namespace's do (networld.Header, SPEC §14).
const worldHeader = "X-Sbxfuzz-World: 1\r\n"

// writeResponse writes an HTTP/1.1 response of r (no body for HEAD),
// saying "Connection: close" when the endpoint closes after it.
func writeResponse(w io.Writer, r reply, method string, closing bool) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("HTTP/1.1 " + strconv.Itoa(r.status) + " " + http.StatusText(r.status) + "\r\n")
	bw.WriteString(worldHeader)
	bw.WriteString("Content-Type: application/octet-stream\r\n")
	bw.WriteString("Content-Length: " + strconv.Itoa(len(r.body)) + "\r\n")
	if r.status == http.StatusFound {
		bw.WriteString("Location: " + spec.Location(r.location) + "\r\n")
	}
	if closing {
		bw.WriteString("Connection: close\r\n")
	}
	bw.WriteString("\r\n")
	if method != http.MethodHead {
		bw.WriteString(r.body)
	}
	return bw.Flush()
}
