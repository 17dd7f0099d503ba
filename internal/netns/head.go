package netns

import "sync"

// head keeps the first n bytes written to it and whether more came: a
// command's output, bounded however much it writes.
type head struct {
	mu    sync.Mutex
	n     int
	buf   []byte
	extra bool
}

func (h *head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	room := h.n - len(h.buf)
	if len(p) > room {
		h.extra = true
		h.buf = append(h.buf, p[:max(room, 0)]...)
	} else {
		h.buf = append(h.buf, p...)
	}
	return len(p), nil
}

func (h *head) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.buf)
}

func (h *head) cut() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.extra
}
