package proxysut

import (
	"net/netip"

	"github.com/sbxfuzz/sbxfuzz/internal/refworld"
	"github.com/sbxfuzz/sbxfuzz/internal/spec"
)

// A proxy that keeps DNS answers (the JVM's resolver cache, nginx's
// resolver valid=, squid's ipcache) and serves sandboxes of several
// worlds one after another connects, in a later world, to what an earlier
// world's DNS answered: a finding about the harness's reuse of the proxy,
// not about the proxy, that no replay reproduces. The bridge sees it in
// the journal: a fetch from an address the world under way never
// answered for the host, that an earlier world of the same proxy did.
// From the first such fetch on, every sandbox of the run gets a proxy of
// its own, as under a Fresh profile, so the finding it caused is judged
// again on a fresh proxy (and marked flaky when it does not fail there),
// and the summary says so.

// dnsAnswer is one DNS answer a world gave: a host, normalized (lower
// case, no brackets), and the address, unmapped.
type dnsAnswer struct {
	host string
	addr netip.Addr
}

func answerOf(host string, addr netip.Addr) dnsAnswer {
	return dnsAnswer{spec.Unbracket(spec.NormalizeHost(host)), addr.Unmap()}
}

// staleFetch reads the journal entries of the bridge's world since the
// last call and reports whether one is a fetch from an address only an
// earlier world of the proxy answered for its host. The answers of this
// world are noted, in the bridge and in the proxy, for the next calls.
func (b *bridge) staleFetch() (stale bool) {
	b.withWorld(func(w *refworld.World) {
		j := w.Journal()
		if b.scanned > len(j) {
			b.scanned = 0 // the journal was reset
		}
		for _, e := range j[b.scanned:] {
			switch e.Call {
			case refworld.CallResolve:
				b.answers[answerOf(e.Name, e.Addr)] = true
			case refworld.CallFetch:
				a := answerOf(e.Name, e.Addr)
				stale = stale || !b.answers[a] && b.px.answeredBefore(a)
			}
		}
		b.scanned = len(j)
	})
	b.px.noteAnswers(b.answers)
	return stale
}

// answeredBefore reports whether a world the proxy served gave a.
func (px *proxy) answeredBefore(a dnsAnswer) bool {
	px.answersMu.Lock()
	defer px.answersMu.Unlock()
	return px.answers[a]
}

// noteAnswers adds answers, a world's, to those the proxy was given.
func (px *proxy) noteAnswers(answers map[dnsAnswer]bool) {
	px.answersMu.Lock()
	defer px.answersMu.Unlock()
	if px.answers == nil {
		px.answers = map[dnsAnswer]bool{}
	}
	for a := range answers {
		px.answers[a] = true
	}
}

// A fetch server that keeps the pages it fetched (server-pdf's
// cache) answers a URL it fetched before without asking the world:
// no request is seen, which would read as a refusal of what the model
// allows, and the replay of a scenario whose run asked the world would
// differ from it. Such an answer, with no error, is taken for the
// cache's: answered as the model does, counted, and from then on every
// sandbox gets a server of its own (session.cachesAnswers).

// noteFetched notes that the world answered the server's request for the
// op's url.
func (px *proxy) noteFetched(url string) {
	px.answersMu.Lock()
	defer px.answersMu.Unlock()
	if px.fetched == nil {
		px.fetched = map[string]bool{}
	}
	px.fetched[url] = true
}

// fetchedBefore reports whether the world answered a request of the
// server's for url, in any world it served.
func (px *proxy) fetchedBefore(url string) bool {
	px.answersMu.Lock()
	defer px.answersMu.Unlock()
	return px.fetched[url]
}
