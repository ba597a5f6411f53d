package candidates

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// A Count is an exact count of addresses or prefixes, from 0 to
// 2^128 − 1: an IPv6 pool may hold more addresses than any Go integer.
// Its zero value is 0. In text (JSON, GraphQL's BigInt) it is a decimal
// string. Add saturates at the largest Count and Sub at 0, so a sum or a
// difference is never a wrapped figure.
type Count struct{ hi, lo uint64 }

// CountOf returns n as a Count.
func CountOf(n uint64) Count { return Count{0, n} }

// MaxCount is the largest Count, 2^128 − 1.
var MaxCount = Count{maxUint64, maxUint64}

// Add returns c + d, or MaxCount when that does not fit.
func (c Count) Add(d Count) Count {
	lo, carry := bits.Add64(c.lo, d.lo, 0)
	hi, over := bits.Add64(c.hi, d.hi, carry)
	if over != 0 {
		return MaxCount
	}
	return Count{hi, lo}
}

// Sub returns c − d, or 0 when d is larger than c.
func (c Count) Sub(d Count) Count {
	lo, borrow := bits.Sub64(c.lo, d.lo, 0)
	hi, under := bits.Sub64(c.hi, d.hi, borrow)
	if under != 0 {
		return Count{}
	}
	return Count{hi, lo}
}

// Cmp returns -1, 0 or +1 as c is less than, equal to or more than d.
func (c Count) Cmp(d Count) int {
	switch {
	case c == d:
		return 0
	case c.hi < d.hi || c.hi == d.hi && c.lo < d.lo:
		return -1
	}
	return 1
}

// IsZero reports whether c is 0.
func (c Count) IsZero() bool { return c == Count{} }

// Uint64 returns c and true when it fits in a uint64.
func (c Count) Uint64() (uint64, bool) { return c.lo, c.hi == 0 }

// Int returns c as an int, or math.MaxInt when it does not fit: the
// figures of an IPv4 pool, which always fit, as the int fields that carry
// them.
func (c Count) Int() int {
	if c.hi != 0 || c.lo > math.MaxInt {
		return math.MaxInt
	}
	return int(c.lo)
}

// Float64 returns c as the nearest float64.
func (c Count) Float64() float64 { return float64(c.hi)*(1<<64) + float64(c.lo) }

// pow10_19 is the largest power of ten below 2^64.
const pow10_19 = 10_000_000_000_000_000_000

// String writes c in decimal.
func (c Count) String() string {
	if c.hi == 0 {
		return strconv.FormatUint(c.lo, 10)
	}
	// c = q·10^19 + r, and q < 2^64 · 2^64 / 10^19 fits in two more
	// divisions' worth of digits.
	var parts []uint64
	for c.hi != 0 {
		qhi, rhi := c.hi/pow10_19, c.hi%pow10_19
		qlo, r := bits.Div64(rhi, c.lo, pow10_19)
		parts = append(parts, r)
		c = Count{qhi, qlo}
	}
	var b strings.Builder
	b.WriteString(strconv.FormatUint(c.lo, 10))
	for i := len(parts) - 1; i >= 0; i-- {
		d := strconv.FormatUint(parts[i], 10)
		b.WriteString(strings.Repeat("0", 19-len(d)))
		b.WriteString(d)
	}
	return b.String()
}

// errCount is the error of a string that is not a Count.
var errCount = errors.New("not a whole number from 0 to 2^128 − 1 in decimal")

// ParseCount reads a Count written in decimal, as String writes it.
func ParseCount(s string) (Count, error) {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return Count{}, errCount
	}
	var c Count
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return Count{}, errCount
		}
		// c = c·10 + d, refused when it overflows.
		hi1, lo := bits.Mul64(c.lo, 10)
		hi2, hi := bits.Mul64(c.hi, 10)
		hi, carry := bits.Add64(hi, hi1, 0)
		if hi2 != 0 || carry != 0 {
			return Count{}, errCount
		}
		lo, carry = bits.Add64(lo, uint64(d), 0)
		hi, carry = bits.Add64(hi, 0, carry)
		if carry != 0 {
			return Count{}, errCount
		}
		c = Count{hi, lo}
	}
	return c, nil
}

// MarshalText writes c in decimal.
func (c Count) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads c in decimal.
func (c *Count) UnmarshalText(b []byte) error {
	v, err := ParseCount(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// scaleNames are the short-scale names of 10^6, 10^9, … 10^36.
var scaleNames = [...]string{"million", "billion", "trillion", "quadrillion", "quintillion", "sextillion", "septillion", "octillion", "nonillion", "decillion", "undecillion"}

// Readable writes c for people: in full with thousands separated by commas
// below a million ("65,534"), otherwise to three significant digits with
// the short-scale name of its power of a thousand ("16.8 million", "18.4
// quintillion", "340 undecillion").
func (c Count) Readable() string {
	s := c.String()
	if len(s) <= 6 {
		if len(s) <= 3 {
			return s
		}
		return s[:len(s)-3] + "," + s[len(s)-3:]
	}
	group := (len(s) - 1) / 3 // 10^(3·group) ≤ c
	whole := len(s) - 3*group // digits before the point: 1 to 3
	lead, _ := strconv.Atoi(s[:3])
	if s[3] >= '5' {
		lead++
	}
	if lead == 1000 {
		// 999.5 of a name and more is 1 of the next.
		lead, whole = 100, whole+1
		if whole > 3 {
			group, whole = group+1, 1
		}
	}
	digits := strconv.Itoa(lead)
	out := digits[:whole]
	if frac := strings.TrimRight(digits[whole:], "0"); frac != "" {
		out += "." + frac
	}
	return out + " " + scaleNames[group-2]
}

// powerSlack is how far from a power of two a count may be for Power to
// write it as one; powerMin the least power worth writing so.
const (
	powerSlack = 256
	powerMin   = 16
)

// Power writes c as a power of two plus or minus a few ("2^64 − 1",
// "2^80", "2^16 + 3"), the form in which people know the sizes of
// prefixes, or "" when c is not within 256 of a power of two of at least
// 2^16.
func (c Count) Power() string {
	n := 128 - bits.LeadingZeros64(c.hi)
	if c.hi == 0 {
		n = 64 - bits.LeadingZeros64(c.lo)
	}
	if n == 0 {
		return ""
	}
	// 2^(n−1) ≤ c < 2^n: c is above one and below the other.
	if k := n - 1; k >= powerMin {
		if d, ok := c.Sub(pow2(k)).Uint64(); ok && d <= powerSlack {
			return powerForm(k, "+", d)
		}
	}
	if n >= powerMin {
		// 2^n − c, computed modulo 2^128: 2^128 is 0.
		var below Count
		if n < 128 {
			below = pow2(n)
		}
		lo, borrow := bits.Sub64(below.lo, c.lo, 0)
		hi, _ := bits.Sub64(below.hi, c.hi, borrow)
		if d, ok := (Count{hi, lo}).Uint64(); ok && d <= powerSlack {
			return powerForm(n, "−", d)
		}
	}
	return ""
}

// pow2 returns 2^k for k from 0 to 127.
func pow2(k int) Count {
	if k >= 64 {
		return Count{1 << (k - 64), 0}
	}
	return Count{0, 1 << k}
}

func powerForm(k int, sign string, d uint64) string {
	s := "2^" + strconv.Itoa(k)
	if d != 0 {
		s += " " + sign + " " + strconv.FormatUint(d, 10)
	}
	return s
}

// A Figure is a Count as a page shows it: exactly, in decimal (a string in
// JSON), with its Readable and Power forms, so that a page never shows a
// 20-digit number alone.
type Figure struct {
	Count    Count  `json:"count"`
	Readable string `json:"readable"`
	Power    string `json:"power,omitempty"`
}

// FigureOf returns c as a Figure.
func FigureOf(c Count) *Figure { return &Figure{Count: c, Readable: c.Readable(), Power: c.Power()} }
