//go:build unix

package realsut

import (
	"slices"
	"testing"
)

// TestLeakInARefusal: a server whose refusal of a write quotes the file it
// would have overwritten, outside its root, leaks that file: the refusal's
// text is looked at as a read's data is. One that says no more than why
// it refused leaks nothing.
func TestLeakInARefusal(t *testing.T) {
	const sc = "grant fs_read /work/\ngrant fs_write /work/\nfile /work/a x\nfile /etc/secret \"top secret\"\n\nfs_write /etc/secret y\n"
	for _, tc := range []struct {
		mode string
		want []string
	}{
		{"showold", []string{"no-effect-on-denial", "confinement"}},
		{"plain", nil},
	} {
		a, err := MCP(fakeMCP(t, tc.mode))
		if err != nil {
			t.Fatal(err)
		}
		if got := invariants(check(t, a, sc)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: findings %v, want %v", tc.mode, got, tc.want)
		}
	}
}
