package views

import (
	"math"
	"testing"
)

func TestFigure(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {65534, "65,534"}, {1048576, "1,048,576"},
		{-1234, "-1,234"}, {-999, "-999"}, {math.MinInt64, "-9,223,372,036,854,775,808"}, {math.MaxInt64, "9,223,372,036,854,775,807"},
	} {
		if got := Figure(tt.n); got != tt.want {
			t.Errorf("Figure(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := Figure(uint64(math.MaxUint64)); got != "18,446,744,073,709,551,615" {
		t.Errorf("Figure(MaxUint64) = %q", got)
	}
}
