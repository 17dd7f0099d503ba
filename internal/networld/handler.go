package networld

import (
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// maxBodyBytes bounds the request body the world reads and throws away.
const maxBodyBytes = 1 << 20

// ServeHTTP answers a request that reached the namespace's listeners
// (netns.Network.Handler): the world's route for its Host and path,
// journaled as a fetch from the address the connection was aimed at, 200
// with the body, 302 for a redirect route (its URL as body and as
// Location, there with the bytes a header cannot hold escaped %XX), or
// 404; a CONNECT 405, journaled as a fetch of "/" of the host it names
// (the world opens no tunnel, but the connection reached the address all
// the same); outside an op 503, journaling nothing. Every answer carries
// Header.
func (b *Binding) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, io.LimitReader(r.Body, maxBodyBytes))
	w.Header().Set(Header, "1")
	if r.Method == http.MethodConnect {
		c := r.Clone(r.Context())
		c.RequestURI = "/"
		if _, open := b.fetch(c); !open {
			b.noteLate(r)
		}
		answer(w, http.StatusMethodNotAllowed, "")
		return
	}
	s, open := b.fetch(r)
	switch {
	case !open:
		b.noteLate(r)
		answer(w, http.StatusServiceUnavailable, "")
	case !s.Found:
		answer(w, http.StatusNotFound, "")
	case s.Redirect:
		// The sandbox, not the world, decides whether to follow: if it
		// does, its next request is one more fetch, journaled and judged
		// as any other.
		w.Header().Set("Location", spec.Location(s.Body))
		answer(w, http.StatusFound, s.Body)
	default:
		answer(w, http.StatusOK, s.Body)
	}
}

// fetch asks the world for r's route, journaled, and reports whether the
// journal was open.
func (b *Binding) fetch(r *http.Request) (s Served, open bool) {
	addr := b.localAddr(r).Addr()
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return Served{}, false
	}
	host := spec.HostOfRequest(r.Host)
	if host == "" {
		// No Host (HTTP/1.0, an h2c preface): the host the address was
		// an answer for in the op, else the address itself.
		host = b.hostAnswered(addr)
	}
	opHost := b.isOpHost(r.Host) || b.isOpHost(host) // the raw Host first: an op's host may hold a port
	path := spec.TargetPath(r.RequestURI)
	if !opHost && b.repeat(host, path, addr) {
		return Served{}, false // counted as a request outside the op
	}
	var aimed netip.Addr // addr as the resolve the connection followed spelled it
	if opHost {
		host = b.op.host
		b.resolveForFetch(addr)
		aimed = b.spelled(addr)
	} else {
		b.resolveLiteral(host)
		aimed = b.spelledFor(host, addr)
		b.op.elsewhere = true
	}
	b.op.fetchedOnce(host, path, addr)
	s.Reached = true
	s.Body, s.Found = b.world.Fetch(host, aimed, path)
	_, s.Redirect = b.world.Location(host, path) // its URL is the body Fetch returned
	if s.Redirect {
		// The Location as it was sent, as the client read it.
		if u, err := url.Parse(spec.Location(s.Body)); err == nil && u.Hostname() != "" {
			if b.op.located == nil {
				b.op.located = map[string]string{}
			}
			b.op.located[hostKey(u.Hostname())] = u.Hostname()
		}
	}
	if r.Method == http.MethodConnect {
		return s, true // journaled, but a 405 answers no fetch
	}
	exact := path == b.op.path
	page := exact || !slices.Contains(sidePaths, path)
	if opHost && (exact || !b.op.servedPath && (page || !b.op.askedPage)) {
		// The answer to the op's own path stands, whatever the sandbox
		// asked after it (robots.txt, an image of the page, the Location
		// of a redirect on the same host); another page's stands but
		// against robots.txt or the icon.
		b.op.served, b.op.servedPath, b.op.internalServed = s, exact, b.op.internal
	}
	if opHost && page {
		b.op.askedPage = true
	}
	return s, true
}

// sidePaths are the paths a client asks of a host beside the page it was
// asked for, never in its stead (Served.SideOnly).
var sidePaths = []string{"/robots.txt", "/favicon.ico"}

// contentType is the type the world serves body as: an HTML page (one
// that begins with "<html", as the generators' pages do) as one, which a
// browser renders, and so follows its refresh, frames and scripts; any
// other body as bytes, which no client takes for a page.
func contentType(body string) string {
	if len(body) >= 5 && strings.EqualFold(body[:5], "<html") {
		return "text/html; charset=utf-8"
	}
	return "application/octet-stream"
}

// answer writes status and body, with the length, so that a proxy
// relays the body whole, and closes the connection after it.
func answer(w http.ResponseWriter, status int, body string) {
	// Every connection serves one request: a client that kept it for the
	// next would send a later op's request (of a later world, maybe) on a
	// connection an earlier op opened, to an address that op resolved.
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Type", contentType(body))
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	io.WriteString(w, body)
}
