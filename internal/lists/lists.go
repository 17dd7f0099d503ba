// Package lists copies a grant's four string lists in one allocation.
package lists

// Copy4 returns copies of the four lists, sharing one new backing array,
// each capped at its own length so that appending to one never writes into
// the next. An empty list comes back nil.
func Copy4(a, b, c, d []string) [4][]string {
	all := make([]string, 0, len(a)+len(b)+len(c)+len(d))
	var out [4][]string
	for i, l := range [4][]string{a, b, c, d} {
		if len(l) > 0 {
			n := len(all)
			all = append(all, l...)
			out[i] = all[n:len(all):len(all)]
		}
	}
	return out
}
