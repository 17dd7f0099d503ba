//go:build unix

package realsut

import (
	"slices"
	"testing"
)

// TestLeakInARefusal: a server whose refusal of a write quotes the file it
// would have overwritten, outside its root, leaks that file: the refusal's
// text is looked at as a read's data is, and so are the parts of an MCP
// result that are not its words (structured content, an image, an
// embedded resource). One that says no more than why it refused leaks
// nothing.
func TestLeakInARefusal(t *testing.T) {
	const sc = "grant fs_read /work/\ngrant fs_write /work/\nfile /work/a x\nfile /etc/secret \"top secret\"\n\nfs_write /etc/secret y\n"
	for _, tc := range []struct {
		mode string
		want []string
	}{
		{"showold", []string{"no-effect-on-denial", "confinement"}},
		{"showstruct", []string{"no-effect-on-denial", "confinement"}},
		{"showimage", []string{"no-effect-on-denial", "confinement"}},
		{"showresource", []string{"no-effect-on-denial", "confinement"}},
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

// TestReadsAnsweredWithAnEmbeddedResource: a server that answers a read
// with the file as an embedded resource, its text or its blob, and no
// words, gives the file's content: no finding on a read the grant allows,
// and the read of a file a link leads out to is seen.
func TestReadsAnsweredWithAnEmbeddedResource(t *testing.T) {
	const world = "grant fs_read /work/\ngrant fs_write /work/\nfile /work/a \"one\\ntwo\\n\"\n\n"
	for _, mode := range []string{"resource", "blob"} {
		a := fakeAdapter(t, mode, "", "")
		if got := invariants(check(t, a, world+"fs_read /work/a\nfs_write /work/b y\nfs_read /work/b\n")); len(got) != 0 {
			t.Errorf("%s: findings %v on reads of granted files, want none", mode, got)
		}
	}
}
