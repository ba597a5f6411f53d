package views

import (
	"math"
	"testing"

	"pivirt.hu/ipam/internal/candidates"
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

func TestCountText(t *testing.T) {
	for _, tt := range []struct {
		n    string
		want string
	}{
		{"0", "0"}, {"254", "254"}, {"65534", "65,534"}, {"16777214", "16,777,214"}, {"4294967295", "4,294,967,295"},
		{"4294967296", "2^32 (4.29 billion)"},
		{"18446744073709551615", "2^64 − 1 (18.4 quintillion)"},
		{"18446744073709551614", "2^64 − 2 (18.4 quintillion)"},
		{"3200000000000000000", "3.2 quintillion"},
		{"1208925819614629174706176", "2^80 (1.21 septillion)"},
		{"340282366920938463463374607431768211455", "2^128 − 1 (340 undecillion)"},
	} {
		c, err := candidates.ParseCount(tt.n)
		if err != nil {
			t.Fatal(err)
		}
		if got := CountText(c); got != tt.want {
			t.Errorf("CountText(%s) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
