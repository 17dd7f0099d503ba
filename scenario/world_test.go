package scenario

import (
	"math"
	"testing"
)

func TestTickClockAt(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	const past = false // ok=false: the true tick would pass 2^63−1
	tests := []struct {
		c      TickClock
		k      int64
		want   int64
		ok     bool
		reason string
	}{
		{TickClock{Start: 0, Step: 1}, 0, 0, true, "the first answer is Start"},
		{TickClock{Start: 0, Step: 1}, 5, 5, true, "Start + 5·Step"},
		{TickClock{Start: 5, Step: 0}, 1000, 5, true, "a stopped clock"},
		{TickClock{Start: 100, Step: 7}, 3, 121, true, "100 + 21"},
		{TickClock{Start: 0, Step: maxI}, 1, maxI, true, "exactly MaxInt64 is a tick like any other"},
		{TickClock{Start: 0, Step: maxI}, 2, maxI, past, "past the top: saturates instead of wrapping"},
		{TickClock{Start: 0, Step: maxI}, maxI, maxI, past, "past the top for a huge k"},
		{TickClock{Start: 1, Step: maxI}, 1, maxI, past, "1 + MaxInt64 is past the top"},
		{TickClock{Start: maxI, Step: 0}, 0, maxI, true, "a clock started at MaxInt64"},
		{TickClock{Start: maxI, Step: 0}, 1000, maxI, true, "stopped at MaxInt64: never past"},
		{TickClock{Start: maxI, Step: 1}, 0, maxI, true, "started at MaxInt64"},
		{TickClock{Start: maxI, Step: 1}, 1, maxI, past, "MaxInt64 + 1 is past the top"},
		{TickClock{Start: maxI - 1, Step: 1}, 1, maxI, true, "lands exactly on the top"},
		{TickClock{Start: 10, Step: maxI / 3}, 2, 10 + 2*(maxI/3), true, "just below the top"},
		{TickClock{Start: 10, Step: maxI / 3}, 3, maxI, past, "10 + (MaxInt64-1) is past the top"},
		{TickClock{Start: -1, Step: 1}, 1, 0, true, "a negative start counts up through 0"},
		{TickClock{Start: -5, Step: 1}, 3, -2, true, "a negative start"},
		{TickClock{Start: minI, Step: maxI}, 1, -1, true, "MinInt64 + MaxInt64"},
		{TickClock{Start: minI, Step: maxI}, 2, maxI - 1, true, "MinInt64 + 2·MaxInt64 fits"},
		{TickClock{Start: minI, Step: maxI}, 3, maxI, past, "MinInt64 + 3·MaxInt64 is past the top"},
		{TickClock{Start: minI, Step: 1}, 0, minI, true, "the first answer is Start"},
		{TickClock{Start: 0, Step: -1}, 3, -3, true, "a clock running backwards"},
		{TickClock{Start: maxI, Step: minI}, 1, -1, true, "MaxInt64 + MinInt64"},
		{TickClock{Start: maxI, Step: minI}, 2, minI, true, "below MinInt64: saturates, never wraps, never past"},
		{TickClock{Start: -10, Step: minI}, 1, minI, true, "below MinInt64: saturates, never wraps, never past"},
	}
	for _, tt := range tests {
		if got, ok := tt.c.At(tt.k); got != tt.want || ok != tt.ok {
			t.Errorf("%+v.At(%d) = %d, %v; want %d, %v: %s", tt.c, tt.k, got, ok, tt.want, tt.ok, tt.reason)
		}
	}
}
