package inert

import "testing"

func TestString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain words, a tab\tand é ü 中文 emoji 👩‍💻 nbsp\u00a0", "plain words, a tab\tand é ü 中文 emoji 👩‍💻 nbsp\u00a0"},
		{"\x1b[2J\x1b]0;PWNED\a", `\x1b[2J\x1b]0;PWNED\a`},
		{"line\nbreak\rreturn\vvt\fff", `line\nbreak\rreturn\vvt\fff`},
		{"nul\x00 del\x7f c1\u0085 ls\u2028 ps\u2029", `nul\x00 del\x7f c1\u0085 ls\u2028 ps\u2029`},
		{"bidi \u202eevil\u202c \u2066x\u2069 \u200f", `bidi \u202eevil\u202c \u2066x\u2069 \u200f`},
		{"a\u200b.test, joiner\u2060, bom\ufeff", `a\u200b.test, joiner\u2060, bom\ufeff`},
		{"soft\u00adhyphen, flag \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f, zwj 👩\u200d💻, zwnj \u200c", "soft\u00adhyphen, flag \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f, zwj 👩\u200d💻, zwnj \u200c"},
		{"bad \xff\xfe utf8 \xc3", `bad \xff\xfe utf8 \xc3`},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
