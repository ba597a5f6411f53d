package candidates

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MinPoolBits is the shortest prefix a pool may have: a pool is at most a /8.
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

// A Pool is a validated pool: an IPv4 prefix, an optional gateway inside it
// and the addresses it never hands out.
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
// mistake, each naming its field.
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
	spans := make([]addrSpan, 0, len(list))
	for i, s := range list {
		if r, ok := parseRange(&errs, fmt.Sprintf("%s[%d]", field, i), s); ok {
			spans = append(spans, addrSpan{u32(r.From), u32(r.To)})
		}
	}
	if err := errs.err(); err != nil {
		return Set{}, err
	}
	return Set{normalize(spans)}, nil
}

// ParseRangeList parses addresses and a-b ranges separated by commas, the
// compact form of a taken set, into a Set. field names the list in
// messages ("takenRanges"); entries are counted from 0.
func ParseRangeList(field, list string) (Set, error) {
	var errs errorList
	spans := make([]addrSpan, 0, strings.Count(list, ",")+1)
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
		if errA != nil || errZ != nil || !a.Is4() || !z.Is4() || z.Less(a) {
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
		spans = append(spans, addrSpan{u32(a), u32(z)})
	}
	if err := errs.err(); err != nil {
		return Set{}, err
	}
	return Set{normalize(spans)}, nil
}

// hostAddressProblem says why a cannot be a host address of p, or "".
func hostAddressProblem(a netip.Addr, p netip.Prefix) string {
	if !p.Contains(a) {
		return "is outside cidr " + p.String()
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
		if _, addrErr := netip.ParseAddr(s); addrErr == nil {
			errs.add(field, fmt.Sprintf("%s %s has no prefix length; write it as %s/24 or similar", field, quote(s), s))
		} else {
			errs.add(field, fmt.Sprintf("%s %s is not an IPv4 prefix such as 10.0.0.0/24", field, quote(s)))
		}
		return netip.Prefix{}, false
	}
	if !p.Addr().Is4() {
		errs.add(field, fmt.Sprintf("%s %s is not IPv4; pools hold IPv4 prefixes only", field, s))
		return netip.Prefix{}, false
	}
	if m := p.Masked(); m != p {
		errs.add(field, fmt.Sprintf("%s %s has host bits set; did you mean %s?", field, s, m))
		return netip.Prefix{}, false
	}
	return p, true
}

func parseAddr(errs *errorList, field, s string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(s)
	switch {
	case s == "":
		errs.add(field, field+" is empty; write an IPv4 address such as 10.0.0.1")
	case err != nil:
		errs.add(field, fmt.Sprintf("%s %s is not an IPv4 address such as 10.0.0.1", field, quote(s)))
	case !a.Is4():
		errs.add(field, fmt.Sprintf("%s %s is not IPv4; pools hold IPv4 addresses only", field, s))
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
