package networld

import (
	"io"
	"net/http"
	"strconv"
)

// maxBodyBytes bounds the request body the world reads and throws away.
const maxBodyBytes = 1 << 20

// ServeHTTP answers a request that reached the namespace's listeners
// (netns.Network.Handler): the world's route for its Host and path,
// journaled as a fetch from the address the connection was aimed at, 200
// with the body or 404; a CONNECT 405, journaling nothing; outside an op
// 503, journaling nothing. Every answer carries Header.
func (b *Binding) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, io.LimitReader(r.Body, maxBodyBytes))
	w.Header().Set(Header, "1")
	if r.Method == http.MethodConnect {
		answer(w, http.StatusMethodNotAllowed, "")
		return
	}
	body, found, open := b.fetch(r)
	switch {
	case !open:
		answer(w, http.StatusServiceUnavailable, "")
	case !found:
		answer(w, http.StatusNotFound, "")
	default:
		answer(w, http.StatusOK, body)
	}
}

// fetch asks the world for r's route, journaled, and reports whether the
// journal was open.
func (b *Binding) fetch(r *http.Request) (body string, found, open bool) {
	addr := b.localAddr(r).Addr()
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open {
		return "", false, false
	}
	host := hostOf(r.Host)
	if b.isOpHost(host) {
		host = b.op.host
		b.resolveForFetch()
	}
	body, found = b.world.Fetch(host, b.spelled(addr), routePath(r))
	return body, found, true
}

// routePath is the path a request asks for: the target's path
// percent-decoded, with "?" and the raw query when it has one.
func routePath(r *http.Request) string {
	p := r.URL.Path
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		p += "?" + r.URL.RawQuery
	}
	return p
}

// answer writes status and body, with the length, so that a proxy
// relays the body whole.
func answer(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	io.WriteString(w, body)
}
