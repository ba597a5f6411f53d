package candidates

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestCountForms(t *testing.T) {
	tests := []struct {
		c                       Count
		decimal, readable, pow2 string
	}{
		{Count{}, "0", "0", ""},
		{CountOf(254), "254", "254", ""},
		{CountOf(1000), "1000", "1,000", ""},
		{CountOf(65534), "65534", "65,534", "2^16 − 2"},
		{CountOf(999_999), "999999", "999,999", ""},
		{CountOf(1_000_000), "1000000", "1 million", ""},
		{CountOf(16_777_214), "16777214", "16.8 million", "2^24 − 2"},
		{CountOf(1 << 32), "4294967296", "4.29 billion", "2^32"},
		{CountOf(999_950_000), "999950000", "1 billion", ""},
		{CountOf(99_950_000), "99950000", "100 million", ""},
		{CountOf(math.MaxUint64), "18446744073709551615", "18.4 quintillion", "2^64 − 1"},
		{CountOf(math.MaxUint64 - 1), "18446744073709551614", "18.4 quintillion", "2^64 − 2"},
		{Count{1, 0}, "18446744073709551616", "18.4 quintillion", "2^64"},
		{Count{1, 3}, "18446744073709551619", "18.4 quintillion", "2^64 + 3"},
		{Count{1<<16 - 1, math.MaxUint64}, "1208925819614629174706175", "1.21 septillion", "2^80 − 1"},
		{MaxCount, "340282366920938463463374607431768211455", "340 undecillion", "2^128 − 1"},
		{Count{1 << 63, 0}, "170141183460469231731687303715884105728", "170 undecillion", "2^127"},
		{CountOf(1<<40 + 1000), "1099511628776", "1.1 trillion", ""},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.decimal {
			t.Errorf("String() = %s, want %s", got, tt.decimal)
		}
		if got := tt.c.Readable(); got != tt.readable {
			t.Errorf("%s.Readable() = %q, want %q", tt.decimal, got, tt.readable)
		}
		if got := tt.c.Power(); got != tt.pow2 {
			t.Errorf("%s.Power() = %q, want %q", tt.decimal, got, tt.pow2)
		}
		back, err := ParseCount(tt.decimal)
		if err != nil || back != tt.c {
			t.Errorf("ParseCount(%s) = %s, %v", tt.decimal, back, err)
		}
	}
}

func TestParseCountRefuses(t *testing.T) {
	for _, s := range []string{"", "-1", "+1", "01", "1.5", "1e9", " 1", "340282366920938463463374607431768211456", "999999999999999999999999999999999999999999"} {
		if c, err := ParseCount(s); err == nil {
			t.Errorf("ParseCount(%q) = %s, want an error", s, c)
		}
	}
}

// TestCountArithmetic checks Add, Sub, Cmp, Uint64, Int and Float64
// against math/big at random points and at the ends.
func TestCountArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 128))
	points := []Count{{}, CountOf(1), CountOf(math.MaxUint64), {1, 0}, MaxCount, {math.MaxUint64, 0}}
	for range 200 {
		points = append(points, Count{r.Uint64() >> r.IntN(64), r.Uint64()}, CountOf(r.Uint64()>>r.IntN(64)))
	}
	maxBig := toBig(MaxCount)
	for _, a := range points {
		for _, b := range points[:40] {
			sum := new(big.Int).Add(toBig(a), toBig(b))
			if sum.Cmp(maxBig) > 0 {
				sum = maxBig
			}
			if got := a.Add(b); toBig(got).Cmp(sum) != 0 {
				t.Fatalf("%s + %s = %s, want %s", a, b, got, sum)
			}
			diff := new(big.Int).Sub(toBig(a), toBig(b))
			if diff.Sign() < 0 {
				diff.SetInt64(0)
			}
			if got := a.Sub(b); toBig(got).Cmp(diff) != 0 {
				t.Fatalf("%s − %s = %s, want %s", a, b, got, diff)
			}
			if got, want := a.Cmp(b), toBig(a).Cmp(toBig(b)); got != want {
				t.Fatalf("Cmp(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
		if v, ok := a.Uint64(); ok != toBig(a).IsUint64() || ok && v != toBig(a).Uint64() {
			t.Fatalf("%s.Uint64() = %d, %v", a, v, ok)
		}
		if f, _ := new(big.Float).SetInt(toBig(a)).Float64(); math.Abs(a.Float64()-f) > f*1e-15 {
			t.Fatalf("%s.Float64() = %g, want %g", a, a.Float64(), f)
		}
		if got := a.String(); got != toBig(a).String() {
			t.Fatalf("String() = %s, want %s", got, toBig(a))
		}
	}
	if CountOf(math.MaxInt).Add(CountOf(1)).Int() != math.MaxInt || CountOf(7).Int() != 7 {
		t.Error("Int does not saturate at math.MaxInt")
	}
}

func toBig(c Count) *big.Int {
	b := new(big.Int).SetUint64(c.hi)
	return b.Lsh(b, 64).Or(b, new(big.Int).SetUint64(c.lo))
}

// TestCountJSON: a Count is a decimal string in JSON, both ways.
func TestCountJSON(t *testing.T) {
	v := struct {
		Size Count `json:"size"`
	}{Count{1, 0}}
	b, err := json.Marshal(v)
	if err != nil || string(b) != `{"size":"18446744073709551616"}` {
		t.Fatalf("json.Marshal = %s, %v", b, err)
	}
	v.Size = Count{}
	if err := json.Unmarshal(b, &v); err != nil || v.Size != (Count{1, 0}) {
		t.Fatalf("json.Unmarshal = %s, %v", v.Size, err)
	}
	if err := json.Unmarshal([]byte(`{"size":"-1"}`), &v); err == nil {
		t.Error("json.Unmarshal accepted -1")
	}
}

// FuzzParseCount checks ParseCount against math/big: the same numbers are
// accepted, as the same values, and String writes them back as they came.
func FuzzParseCount(f *testing.F) {
	for _, s := range []string{"0", "18446744073709551616", "340282366920938463463374607431768211455", "340282366920938463463374607431768211456", "007", "-1", "1e3", ""} {
		f.Add(s)
	}
	maxBig := toBig(MaxCount)
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCount(s)
		b, ok := new(big.Int).SetString(s, 10)
		ok = ok && b.Sign() >= 0 && b.Cmp(maxBig) <= 0 && b.String() == s
		if (err == nil) != ok {
			t.Fatalf("ParseCount(%q) error %v, want accepted: %v", s, err, ok)
		}
		if err == nil && (toBig(c).Cmp(b) != 0 || c.String() != s) {
			t.Fatalf("ParseCount(%q) = %s", s, c)
		}
	})
}
