package candidates

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MinPoolBits is the shortest prefix a pool may have, of either family: a
// pool is at most a /8.
const MinPoolBits = 8

// MaxExcludes bounds the entries of a pool's exclude list; ranges make
// longer lists unnecessary.
const MaxExcludes = 4096

// MaxReserved bounds the reserved addresses of a request.
const MaxReserved = 4096

// A PoolSpec is a pool as the user writes it.
type PoolSpec struct {
	CIDR    string   `json:"cidr"`
	Gateway string   `json:"gateway,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// A Pool is a validated pool: an IPv4 or IPv6 prefix, an optional gateway
// inside it and the addresses it never hands out, all of the prefix's
// family.
type Pool struct {
	Prefix  netip.Prefix
	Gateway netip.Addr // the zero Addr when the pool has none
	Exclude Set
}

// A RequestSpec narrows an allocation as the user writes it.
type RequestSpec struct {
	Within   string   `json:"within,omitempty"`
	Reserved []string `json:"reserved,omitempty"`
}

// A Request is a validated RequestSpec. Its zero value asks for any
// candidate of the pool.
type Request struct {
	Within   netip.Prefix // the zero Prefix for the whole pool
	Reserved Set
}

// ParsePool validates spec. The error, if any, is an Errors listing every
// mistake, each naming its field. An IPv6 prefix or address is accepted in
// its canonical form only (RFC 5952, as netip writes it); any other
// spelling of a valid one is refused with the canonical form.
func ParsePool(spec PoolSpec) (Pool, error) {
	var errs errorList
	if len(spec.Exclude) > MaxExcludes {
		errs.add("exclude", fmt.Sprintf("exclude has %d entries; at most %d are accepted: write runs of addresses as a-b ranges", len(spec.Exclude), MaxExcludes))
		return Pool{}, errs.err()
	}
	var p Pool
	prefix, ok := parsePrefix(&errs, "cidr", spec.CIDR)
	if ok && prefix.Bits() < MinPoolBits {
		errs.add("cidr", fmt.Sprintf("cidr %s is too large; a pool is at most a /%d", prefix, MinPoolBits))
		ok = false
	}
	if !ok {
		// Without a prefix, gateway and excludes can only be checked for form.
		if spec.Gateway != "" {
			parseAddr(&errs, "gateway", spec.Gateway)
		}
		for i, e := range spec.Exclude {
			parseRange(&errs, fmt.Sprintf("exclude[%d]", i), e)
		}
		return Pool{}, errs.err()
	}
	p.Prefix = prefix
	if spec.Gateway != "" {
		if gw, ok := parseAddr(&errs, "gateway", spec.Gateway); ok {
			if msg := hostAddressProblem(gw, prefix); msg != "" {
				errs.add("gateway", "gateway "+gw.String()+" "+msg)
			} else {
				p.Gateway = gw
			}
		}
	}
	var ex SetBuilder
	for i, e := range spec.Exclude {
		field := fmt.Sprintf("exclude[%d]", i)
		r, ok := parseRange(&errs, field, e)
		if !ok {
			continue
		}
		if msg := familyProblem(r.From, prefix); msg != "" {
			errs.add(field, fmt.Sprintf("%s %s %s", field, r, msg))
			continue
		}
		if !prefix.Contains(r.From) || !prefix.Contains(r.To) {
			errs.add(field, fmt.Sprintf("%s %s is outside cidr %s", field, r, prefix))
			continue
		}
		ex.AddRange(r)
	}
	p.Exclude = ex.View()
	if err := errs.err(); err != nil {
		return Pool{}, err
	}
	return p, nil
}

// ParseRequest validates spec against the pool. The error, if any, is an
// Errors listing every mistake, each naming its field.
func (p Pool) ParseRequest(spec RequestSpec) (Request, error) {
	var errs errorList
	var r Request
	scope := p.Prefix
	if spec.Within != "" {
		if w, ok := parsePrefix(&errs, "within", spec.Within); ok {
			if w.Bits() < p.Prefix.Bits() || !p.Prefix.Contains(w.Addr()) {
				errs.add("within", fmt.Sprintf("within %s is outside cidr %s", w, p.Prefix))
			} else {
				r.Within, scope = w, w
			}
		}
	}
	if len(spec.Reserved) > MaxReserved {
		errs.add("reserved", fmt.Sprintf("reserved has %d entries; at most %d are accepted", len(spec.Reserved), MaxReserved))
		return Request{}, errs.err()
	}
	var res SetBuilder
	for i, s := range spec.Reserved {
		field := fmt.Sprintf("reserved[%d]", i)
		a, ok := parseAddr(&errs, field, s)
		if !ok {
			continue
		}
		if !scope.Contains(a) {
			errs.add(field, fmt.Sprintf("%s %s is outside %s", field, a, scope))
			continue
		}
		res.Add(a)
	}
	r.Reserved = res.View()
	if err := errs.err(); err != nil {
		return Request{}, err
	}
	return r, nil
}

// ParseRanges parses addresses and a-b ranges, as the taken set a page
// carries, into a Set. field names the list in messages ("taken").
func ParseRanges(field string, list []string) (Set, error) {
	var errs errorList
	ranges := make([]Range, 0, len(list))
	for i, s := range list {
		if r, ok := parseRange(&errs, fmt.Sprintf("%s[%d]", field, i), s); ok {
			ranges = append(ranges, r)
		}
	}
	if err := errs.err(); err != nil {
		return Set{}, err
	}
	return SetOfRanges(ranges...), nil
}

// ParseRangeList parses addresses and a-b ranges separated by commas, the
// compact form of a taken set, into a Set. field names the list in
// messages ("takenRanges"); entries are counted from 0.
func ParseRangeList(field, list string) (Set, error) {
	var errs errorList
	spans := make([]addrSpan, 0, strings.Count(list, ",")+1)
	var spans6 []addr6Span
	for i, more := 0, list != ""; more; i++ {
		var entry string
		entry, list, more = strings.Cut(list, ",")
		from, to, isRange := strings.Cut(entry, "-")
		a, errA := netip.ParseAddr(strings.TrimSpace(from))
		z := a
		var errZ error
		if isRange {
			z, errZ = netip.ParseAddr(strings.TrimSpace(to))
		}
		if errA != nil || errZ != nil || !sameFamily(a, z) || z.Less(a) || a.Is6() && (!canonical6(a, from) || isRange && !canonical6(z, to)) {
			// The slow path words the message.
			field := fmt.Sprintf("%s[%d]", field, i)
			if _, ok := parseRange(&errs, field, entry); ok {
				errs.add(field, fmt.Sprintf("%s %s is not an address or an a-b range", field, quote(entry)))
			}
			if len(errs.errs) >= 20 {
				break
			}
			continue
		}
		if a.Is6() {
			spans6 = append(spans6, addr6Span{u128(a), u128(z)})
			continue
		}
		spans = append(spans, addrSpan{u32(a), u32(z)})
	}
	if err := errs.err(); err != nil {
		return Set{}, err
	}
	return setOf(normalize(spans), normalize(spans6)), nil
}

// sameFamily reports whether a and z are both IPv4 or both IPv6.
func sameFamily(a, z netip.Addr) bool { return a.Is4() && z.Is4() || a.Is6() && z.Is6() }

// canonical6 reports whether s, with spaces around it, is the canonical
// form of the IPv6 address a (RFC 5952, as netip writes it, without a
// zone). It allocates nothing.
func canonical6(a netip.Addr, s string) bool {
	var buf [64]byte
	return a.Zone() == "" && string(a.AppendTo(buf[:0])) == strings.TrimSpace(s)
}

// familyProblem says why a cannot be an address of p's family, or "".
func familyProblem(a netip.Addr, p netip.Prefix) string {
	switch {
	case a.Is4() && p.Addr().Is6():
		return "is not IPv6 as cidr " + p.String() + " is; a pool holds addresses of one family"
	case a.Is6() && p.Addr().Is4():
		return "is not IPv4 as cidr " + p.String() + " is; a pool holds addresses of one family"
	}
	return ""
}

// hostAddressProblem says why a cannot be a host address of p, or "".
func hostAddressProblem(a netip.Addr, p netip.Prefix) string {
	if msg := familyProblem(a, p); msg != "" {
		return msg
	}
	if !p.Contains(a) {
		return "is outside cidr " + p.String()
	}
	if p.Addr().Is6() {
		if p.Bits() <= maxAnycastBits && a == p.Addr() {
			return "is the subnet-router anycast address of " + p.String()
		}
		return ""
	}
	if p.Bits() >= 31 {
		return ""
	}
	lo, hi := prefixBounds(p)
	switch u32(a) {
	case lo:
		return "is the network address of " + p.String()
	case hi:
		return "is the broadcast address of " + p.String()
	}
	return ""
}

func parsePrefix(errs *errorList, field, s string) (netip.Prefix, bool) {
	if s == "" {
		errs.add(field, field+" is required")
		return netip.Prefix{}, false
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		switch a, addrErr := netip.ParseAddr(s); {
		case addrErr == nil && a.Is6():
			errs.add(field, fmt.Sprintf("%s %s has no prefix length; write it as %s/64 or similar", field, quote(s), a.WithZone("")))
		case addrErr == nil:
			errs.add(field, fmt.Sprintf("%s %s has no prefix length; write it as %s/24 or similar", field, quote(s), s))
		case strings.Contains(s, ":"):
			errs.add(field, fmt.Sprintf("%s %s is not an IPv6 prefix such as 2001:db8::/32", field, quote(s)))
		default:
			errs.add(field, fmt.Sprintf("%s %s is not an IPv4 prefix such as 10.0.0.0/24", field, quote(s)))
		}
		return netip.Prefix{}, false
	}
	if m := p.Masked(); m != p {
		errs.add(field, fmt.Sprintf("%s %s has host bits set; did you mean %s?", field, s, m))
		return netip.Prefix{}, false
	}
	if c := p.String(); c != s {
		errs.add(field, fmt.Sprintf("%s %s is not in canonical form; did you mean %s?", field, s, c))
		return netip.Prefix{}, false
	}
	return p, true
}

func parseAddr(errs *errorList, field, s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	switch {
	case s == "":
		errs.add(field, field+" is empty; write an IPv4 address such as 10.0.0.1")
	case err != nil && strings.Contains(s, ":"):
		errs.add(field, fmt.Sprintf("%s %s is not an IPv6 address such as 2001:db8::1", field, quote(s)))
	case err != nil:
		errs.add(field, fmt.Sprintf("%s %s is not an IPv4 address such as 10.0.0.1", field, quote(s)))
	case a.Is6() && a.Zone() != "":
		errs.add(field, fmt.Sprintf("%s %s has a zone; did you mean %s?", field, quote(s), a.WithZone("")))
	case a.Is6() && !canonical6(a, s):
		errs.add(field, fmt.Sprintf("%s %s is not in canonical form; did you mean %s?", field, s, a))
	default:
		return a, true
	}
	return netip.Addr{}, false
}

// parseRange parses "a.b.c.d" or "a.b.c.d-a.b.c.e" (spaces around the dash
// allowed).
func parseRange(errs *errorList, field, s string) (Range, bool) {
	from, to, isRange := strings.Cut(s, "-")
	if !isRange {
		a, ok := parseAddr(errs, field, strings.TrimSpace(s))
		return Range{a, a}, ok
	}
	a, okA := parseAddr(errs, field, strings.TrimSpace(from))
	if !okA {
		return Range{}, false
	}
	b, okB := parseAddr(errs, field, strings.TrimSpace(to))
	if !okB {
		return Range{}, false
	}
	if !sameFamily(a, b) {
		errs.add(field, fmt.Sprintf("%s %s mixes IPv4 and IPv6; a range is of one family", field, quote(s)))
		return Range{}, false
	}
	if b.Less(a) {
		errs.add(field, fmt.Sprintf("%s %s is a descending range; write %s-%s", field, quote(s), b, a))
		return Range{}, false
	}
	return Range{a, b}, true
}

// quote quotes s for a message, shortening what is too long to be useful
// without cutting a character in two.
func quote(s string) string {
	const limit = 64
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}
