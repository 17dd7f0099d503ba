package must

import (
	"errors"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
)

// TestGrant: a valid spec gives the grant NewGrant gives; an invalid one
// panics with NewGrant's error.
func TestGrant(t *testing.T) {
	s := core.GrantSpec{FSRead: []string{"/work/"}, Budgets: core.Budgets{MaxOps: 3}}
	if g := Grant(s); !g.Matches(s) {
		t.Errorf("Grant(%+v) = %+v, which does not match its spec", s, g.Spec())
	}
	defer func() {
		if err, ok := recover().(error); !ok || !errors.Is(err, core.ErrInvalidGrant) {
			t.Errorf("Grant of a relative root panicked with %v, want an error wrapping ErrInvalidGrant", err)
		}
	}()
	Grant(core.GrantSpec{FSRead: []string{"work"}})
	t.Error("Grant of a relative root returned")
}
