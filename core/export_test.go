package core

// LinksKnown returns how many of its template's links w's walks have
// learned where they lead, or that they loop.
func LinksKnown(w *RefWorld) int {
	n := 0
	for _, f := range w.memo.links {
		if f.state == linkKnown || f.state == linkLoops {
			n++
		}
	}
	return n
}
