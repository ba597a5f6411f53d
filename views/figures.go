package views

import (
	"strconv"

	"pivirt.hu/ipam/internal/candidates"
)

// Figure writes a count, a size or a usage as every page of the console
// shows it: with a comma between thousands, 1048576 as "1,048,576".
// Identifiers that are numbers (a VLAN ID, a prefix length, a change's
// number) are not figures, and keep their digits together.
func Figure[T ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64](n T) string {
	var s string
	if n < 0 {
		s = strconv.FormatInt(int64(n), 10)[1:]
	} else {
		s = strconv.FormatUint(uint64(n), 10)
	}
	b := make([]byte, 0, len(s)+len(s)/3+1)
	if n < 0 {
		b = append(b, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// exactBelow is the largest count written in full: every IPv4 figure is.
const exactBelow = 1 << 32

// CountText writes an exact count as people read it: in full as Figure
// does below 2^32 (every IPv4 figure, "65,534"), otherwise as the power of
// two it is near, with its size in words ("2^64 − 1 (18.4 quintillion)"),
// or in words alone ("3.2 quintillion"): never a 20-digit number alone.
// The exact decimal is c.String().
func CountText(c candidates.Count) string {
	if n, ok := c.Uint64(); ok && n < exactBelow {
		return Figure(n)
	}
	if p := c.Power(); p != "" {
		return p + " (" + c.Readable() + ")"
	}
	return c.Readable()
}
