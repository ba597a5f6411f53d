package candidates

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The words of mistakes. Each message of a FieldError starts with the
// name of its field as the API spells it ("exclude[0] 192.0.3.10 is
// outside cidr 192.0.2.0/24"), which reads well in an API's answer; a form
// shows the same mistake beside the field in plain words ("Exclude
// 192.0.3.10 is outside 192.0.2.0/24"), which Plain derives from it, so
// that the server and the browser say it alike.

// labels are the words a form names a field by, where they are not the
// field's name made readable.
var labels = map[string]string{
	"cidr":             "CIDR",
	"prefixLength":     "Prefix length",
	"nic":              "NIC",
	"vpc":              "VPC",
	"uid":              "UID",
	"node":             "Kind",
	"node_attribute":   "Attribute",
	"takenRanges":      "Taken",
	"ipv6Cidr":         "IPv6 CIDR",
	"ipv6PrefixLength": "IPv6 prefix length",
	"ipv6Gateway":      "IPv6 gateway",
	"ipv6Addressing":   "IPv6 addressing",
	"poolV6":           "IPv6 pool",
}

// singulars name one entry of a list field: "Range 2" of ranges[1].
var singulars = map[string]string{
	"ranges":  "Range",
	"subnets": "Subnet",
	"pools":   "Pool",
	"zones":   "Zone",
}

// valueLists are the list fields whose messages quote the entry at fault:
// their entries are not numbered in plain words.
var valueLists = map[string]bool{"exclude": true, "reserved": true, "taken": true, "takenRanges": true, "explain": true}

// Label is how a form names a field of a request: "CIDR" of "cidr",
// "Prefix length" of "prefixLength", "Exclude" of "exclude[2]", "Hostname"
// of "vm.hostname", "Range 2" of "ranges[1]" and "Range 1's start" of
// "ranges[0].start".
func Label(field string) string {
	segments := strings.Split(field, ".")
	last := len(segments) - 1
	out := ""
	for i, seg := range segments {
		name, index, indexed := segmentOf(seg)
		switch {
		case i == last && indexed && !valueLists[name]:
			out += singularLabel(name) + " " + strconv.Itoa(index+1)
		case i == last && out != "":
			w := words(name)
			if _, ok := labels[name]; !ok {
				w = strings.ToLower(w)
			}
			out += "'s " + w
		case i == last:
			out = words(name)
		case indexed:
			// A parent's entry names which one: "Range 1's start".
			out = singularLabel(name) + " " + strconv.Itoa(index+1)
		}
	}
	return out
}

// segmentOf splits "ranges[1]" into ranges and 1.
func segmentOf(seg string) (name string, index int, indexed bool) {
	name, rest, ok := strings.Cut(seg, "[")
	if !ok {
		return seg, 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
	return name, n, err == nil
}

// singularLabel names one entry of the list field name.
func singularLabel(name string) string {
	if s, ok := singulars[name]; ok {
		return s
	}
	return words(name)
}

// words makes a field's name readable: "prefixLength" "Prefix length",
// "vlan_id" "Vlan id".
func words(name string) string {
	if l, ok := labels[name]; ok {
		return l
	}
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == '_' || r == '-':
			b.WriteByte(' ')
		case unicode.IsUpper(r) && i > 0:
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(r))
		case i == 0:
			b.WriteRune(unicode.ToUpper(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Plain says message, a mistake in field that starts with the field's
// name ("exclude[0] 192.0.3.10 is outside cidr 192.0.2.0/24"), in the
// words a form shows beside the field: its label for its name, and a
// prefix for "cidr" and its prefix ("Exclude 192.0.3.10 is outside
// 192.0.2.0/24"). A message that does not start with its field's name
// ("pool vpc-main has no free address in 10.42.2.0/30") is said as it is,
// but for its first word, written as a sentence starts ("Pool", "VPC"); a
// value it quotes is left as it is ("\"web-01\" is taken"), and so is an
// address or a prefix ("fd12::/64 is outside …").
func Plain(field, message string) string {
	rest, ok := strings.CutPrefix(message, field)
	if !ok || field == "" || rest != "" && rest[0] != ' ' && rest[0] != ':' {
		first, rest, spaced := strings.Cut(message, " ")
		_, addrErr := netip.ParseAddr(first)
		_, prefixErr := netip.ParsePrefix(first)
		if l, ok := labels[first]; ok {
			first = l
		} else if r, size := utf8.DecodeRuneInString(first); size > 0 && addrErr != nil && prefixErr != nil {
			first = string(unicode.ToUpper(r)) + first[size:]
		}
		if spaced {
			return first + " " + rest
		}
		return first
	}
	return Label(field) + strings.ReplaceAll(rest, " outside cidr ", " outside ")
}

// PlainOf is the plain words of a mistake (Plain), for a form.
func (e *FieldError) PlainOf() string { return Plain(e.Field, e.Message) }

// maxNameLen is the length of the longest name: a DNS label's.
const maxNameLen = 63

// CheckName checks a name of a pool, a VPC, a subnet or a floating IP,
// the request's field: a DNS label (lower-case letters, digits and '-',
// starting and ending with a letter or a digit, at most 63 characters).
func CheckName(field, s string) *FieldError {
	switch {
	case s == "":
		return &FieldError{Field: field, Message: field + " is required"}
	case len(s) > maxNameLen:
		return &FieldError{Field: field, Message: fmt.Sprintf("%s %s is too long: at most %d characters", field, quote(s), maxNameLen)}
	case !isLabel(s):
		return &FieldError{Field: field, Message: fmt.Sprintf("%s %s is not a valid name: use lower-case letters, digits and '-', starting and ending with a letter or digit", field, quote(s))}
	}
	return nil
}

// CheckZone checks a zone, the request's field: empty (none), or named as
// a name is.
func CheckZone(field, s string) *FieldError {
	if s != "" && (len(s) > maxNameLen || !isLabel(s)) {
		return &FieldError{Field: field, Message: fmt.Sprintf("%s %s is not a valid zone: use lower-case letters, digits and '-'", field, quote(s))}
	}
	return nil
}

// isLabel reports whether s, of 1 to 63 bytes, is a DNS label in lower
// case.
func isLabel(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}
