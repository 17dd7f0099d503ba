package spec

import "testing"

func TestLocation(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://169.254.169.254/latest/meta-data/", "http://169.254.169.254/latest/meta-data/"},
		{"/status?a=b%20c", "/status?a=b%20c"}, // an escape already there stays as written
		{" http://a.test/x\t", "%20http://a.test/x%09"},
		{"http://a.test/\r\nSet-Cookie: x", "http://a.test/%0D%0ASet-Cookie:%20x"},
		{"http://a.test/\x00\x7f\x80é", "http://a.test/%00%7F\x80é"}, // bytes past ASCII pass as they are
		{"", ""},
	} {
		if got := Location(tc.url); got != tc.want {
			t.Errorf("Location(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
