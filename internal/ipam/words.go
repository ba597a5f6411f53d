package ipam

import (
	"strconv"
	"unicode/utf8"
)

// The words of the service's messages.

// describe quotes what the user wrote for a message, shortened.
func describe(s string) string {
	if len(s) > 64 {
		cut := 64
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

// plural writes n with the noun in the right number.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// them is the pronoun for n things.
func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
