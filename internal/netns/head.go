package netns

import (
	"fmt"
	"sync"
)

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

// headTail keeps the first and the last bytes written to it, n in all: a
// command's stderr, whose first words say how it started and whose last
// say why it ended, bounded however much it logs between.
type headTail struct {
	mu      sync.Mutex
	first   head
	last    []byte // the last bytes past first, at most tailN once trimmed
	tailN   int
	dropped int64 // bytes written between first and last, kept by neither
}

// newHeadTail keeps n bytes, half of them the first.
func newHeadTail(n int) *headTail {
	return &headTail{first: head{n: n / 2}, tailN: n - n/2}
}

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	room := max(h.first.n-len(h.first.buf), 0)
	if room > 0 {
		k := min(room, len(p))
		h.first.Write(p[:k])
		p = p[k:]
	}
	h.last = append(h.last, p...)
	// Trimmed only once it holds twice what it keeps, so that a command
	// writing a little at a time costs a copy per tailN bytes, not per write.
	if len(h.last) > 2*h.tailN {
		h.trim()
	}
	return n, nil
}

// trim forgets all but the last tailN bytes of last.
func (h *headTail) trim() {
	if over := len(h.last) - h.tailN; over > 0 {
		h.dropped += int64(over)
		h.last = append(h.last[:0], h.last[over:]...)
	}
}

// String is the first bytes, then the last; when bytes between were
// dropped, a line between them says how many.
func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trim()
	s := h.first.String()
	if h.dropped > 0 {
		s += fmt.Sprintf("\n[... %d bytes cut ...]\n", h.dropped)
	}
	return s + string(h.last)
}

func (h *headTail) cut() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.trim()
	return h.dropped > 0
}
