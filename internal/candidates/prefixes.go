package candidates

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
)

// FreePrefixes returns, lowest first, up to count prefixes of length bits
// inside parent that overlap none of used (used may be unsorted,
// overlapping, partly or wholly outside parent).
//
// It is how the next free subnet of a size is chosen: the used prefixes are
// the VPC's subnets, and the answer is its lowest free aligned blocks; and
// the next prefix an IPv6 delegation pool delegates. parent may be of
// either family; used prefixes of the other family are ignored. Neither
// parent nor used need be canonical: their host bits are masked. A bits
// shorter than parent's or longer than the family's (32 or 128), or a
// count below 1, gives nil.
//
// The cost grows with the number of used prefixes and of answers, not with
// the size of parent: a used range is jumped over in one step.
func FreePrefixes(parent netip.Prefix, used []netip.Prefix, bits, count int) []netip.Prefix {
	if !parent.IsValid() || bits < parent.Bits() || bits > parent.Addr().BitLen() || count < 1 {
		return nil
	}
	return newUsedPrefixes(parent, used).free(bits, count)
}

// usedPrefixes is the prefixes used in a parent, clipped to it and merged
// into sorted ranges: what FreePrefixes computes before it walks the
// parent, kept by Claims to answer every prediction of a page.
type usedPrefixes struct {
	parent netip.Prefix // masked
	spans  []addrSpan   // of an IPv4 parent
	spans6 []addr6Span  // of an IPv6 parent
}

// newUsedPrefixes returns used inside parent; parent must be valid.
func newUsedPrefixes(parent netip.Prefix, used []netip.Prefix) usedPrefixes {
	u := usedPrefixes{parent: parent.Masked()}
	if parent.Addr().Is6() {
		lo, hi := prefixBounds6(parent)
		spans := make([]addr6Span, 0, len(used))
		for _, p := range used {
			if !p.IsValid() || !p.Addr().Is6() {
				continue
			}
			if ulo, uhi := prefixBounds6(p); !hi.less(ulo) && !uhi.less(lo) {
				spans = append(spans, addr6Span{max6(ulo, lo), min6(uhi, hi)})
			}
		}
		u.spans6 = normalize(spans)
		return u
	}
	lo, hi := prefixBounds(u.parent)
	spans := make([]addrSpan, 0, len(used))
	for _, p := range used {
		if !p.IsValid() || !p.Addr().Is4() {
			continue
		}
		if ulo, uhi := prefixBounds(p.Masked()); ulo <= hi && uhi >= lo {
			spans = append(spans, addrSpan{max(ulo, lo), min(uhi, hi)})
		}
	}
	u.spans = normalize(spans)
	return u
}

// free returns, lowest first, up to count free aligned prefixes of length
// bits, as FreePrefixes does.
func (u usedPrefixes) free(bits, count int) []netip.Prefix {
	if bits < u.parent.Bits() || bits > u.parent.Addr().BitLen() || count < 1 {
		return nil
	}
	if u.parent.Addr().Is6() {
		return u.free6(bits, count)
	}
	lo, hi := prefixBounds(u.parent)
	size := uint64(1) << (32 - bits)
	blocks := (uint64(hi) - uint64(lo) + 1) / size
	// Room for a page's worth of answers; more grow the slice as needed.
	out := make([]netip.Prefix, 0, min(uint64(count), blocks, 64))
	cur, end := uint64(lo), uint64(hi)
	for _, t := range u.spans {
		// Every block that ends before t starts is free.
		for ; cur+size-1 < uint64(t.lo); cur += size {
			out = append(out, netip.PrefixFrom(addr(ip4(cur)), bits))
			if len(out) == count {
				return out
			}
		}
		// Jump to the first aligned block after t.
		if next := (uint64(t.hi) + size) &^ (size - 1); next > cur {
			cur = next
		}
	}
	for ; cur <= end; cur += size {
		out = append(out, netip.PrefixFrom(addr(ip4(cur)), bits))
		if len(out) == count {
			break
		}
	}
	return out
}

// free6 is free of an IPv6 parent.
func (u usedPrefixes) free6(bits, count int) []netip.Prefix {
	lo, hi := prefixBounds6(u.parent)
	// A block starts at an aligned cur and ends at cur|step; the walk is
	// done after the block that ends at hi, the last address of parent.
	step := hostMask6(bits)
	out := make([]netip.Prefix, 0, min(count, 64, 1<<min(bits-u.parent.Bits(), 6)))
	cur, done := lo, false
	emit := func() bool {
		out = append(out, netip.PrefixFrom(addr6(cur), bits))
		done = cur.or(step) == hi
		cur = cur.or(step).next()
		return len(out) == count
	}
	for _, t := range u.spans6 {
		if done {
			return out
		}
		// Every block that ends before t starts is free.
		for !done && cur.or(step).less(t.lo) {
			if emit() {
				return out
			}
		}
		// Jump to the first aligned block after t.
		if end := t.hi.or(step); end == hi {
			return out
		} else if cur.less(end.next()) {
			cur = end.next()
		}
	}
	for !done {
		if emit() {
			break
		}
	}
	return out
}

// FreePrefixCount returns how many prefixes of length bits inside parent
// overlap none of used (as FreePrefixes takes them), exactly: what a
// prefix that hands out prefixes of one length has left.
func FreePrefixCount(parent netip.Prefix, used []netip.Prefix, bits int) Count {
	total := PrefixCount(parent, bits)
	if total.IsZero() {
		return total
	}
	// The used blocks: each used range widened to the blocks it touches,
	// merged, counted in blocks of 2^hostBits addresses. An IPv4 prefix
	// is taken as its IPv4-mapped IPv6 one, so both families count alike.
	six := parent.Addr().Is6()
	hostBits := parent.Addr().BitLen() - bits
	step := hostMask6(128 - hostBits)
	lo, hi := prefixBounds6(as6(parent))
	var spans []addr6Span
	for _, p := range used {
		if !p.IsValid() || p.Addr().Is6() != six {
			continue
		}
		if ulo, uhi := prefixBounds6(as6(p)); !hi.less(ulo) && !uhi.less(lo) {
			spans = append(spans, addr6Span{vmax(ulo, lo).andNot(step), vmin(uhi, hi).or(step)})
		}
	}
	var usedBlocks Count
	for _, sp := range normalize(spans) {
		usedBlocks = usedBlocks.Add(size6(sp).shiftRight(hostBits))
	}
	return total.Sub(usedBlocks)
}

// as6 returns p as an IPv6 prefix: an IPv4 prefix as its IPv4-mapped one.
func as6(p netip.Prefix) netip.Prefix {
	if p.Addr().Is4() {
		return netip.PrefixFrom(netip.AddrFrom16(p.Addr().As16()), p.Bits()+96).Masked()
	}
	return p.Masked()
}

// shiftRight returns c shifted right by n bits.
func (c Count) shiftRight(n int) Count { return Count(ip6(c).shiftRight(n)) }

// PrefixCount returns how many prefixes of length bits parent holds:
// 2^(bits − parent's length), exactly; the largest Count for the 2^128
// addresses of ::/0, one more than a Count holds; 0 when bits is shorter
// than parent's or longer than its family's addresses.
func PrefixCount(parent netip.Prefix, bits int) Count {
	if !parent.IsValid() || bits < parent.Bits() || bits > parent.Addr().BitLen() {
		return Count{}
	}
	if n := bits - parent.Bits(); n < 128 {
		return pow2(n)
	}
	return MaxCount
}

// SubnetPreviewInput asks which prefixes the next subnets of a length
// would get in a VPC, before anything is committed.
type SubnetPreviewInput struct {
	// VPC is the VPC's name, which the messages give.
	VPC string `json:"vpc"`
	// CIDR is the VPC's prefix, IPv4 or IPv6; the subnets and the
	// answers are of its family.
	CIDR string `json:"cidr"`
	// Subnets lists the prefixes of the VPC's subnets.
	Subnets      []string `json:"subnets,omitempty"`
	PrefixLength int      `json:"prefixLength"`
	// Count asks for that many prefixes, lowest first (0 means 1).
	Count int `json:"count,omitempty"`
}

// SubnetPreviewOutput answers a SubnetPreviewInput: the free prefixes,
// lowest first, or why there is none. Valid says whether the input was;
// a valid input whose VPC has no free prefix of the length gets no Next
// and one error saying so, as the server's refusal does.
//
// Size is how many prefixes of the length the VPC's prefix holds and Free
// how many of them overlap none of its subnets: a prefix that hands out
// prefixes counts its use in prefixes ("3 of 256 /64s").
type SubnetPreviewOutput struct {
	Valid  bool           `json:"valid"`
	Errors Errors         `json:"errors,omitempty"`
	Next   []netip.Prefix `json:"next,omitempty"`
	Size   *Figure        `json:"size,omitempty"`
	Free   *Figure        `json:"free,omitempty"`
}

// MaxSubnetBits is the longest prefix of a subnet: a /32 leaves no address
// once its gateway is reserved.
const MaxSubnetBits = 31

// SubnetPreview answers in with FreePrefixes. Every mistake in it is
// reported in Errors, each naming its field.
func SubnetPreview(in SubnetPreviewInput) SubnetPreviewOutput {
	var errs errorList
	if in.VPC == "" {
		errs.add("vpc", "vpc is required")
	}
	vpc, vpcOK := parsePrefix(&errs, "cidr", in.CIDR)
	used := make([]netip.Prefix, 0, len(in.Subnets))
	for i, s := range in.Subnets {
		if p, ok := parsePrefix(&errs, fmt.Sprintf("subnets[%d]", i), s); ok {
			used = append(used, p)
		}
	}
	// The lengths of the VPC's family, or of the family its cidr seems to
	// be of when it is not valid.
	bits, maxBits := in.PrefixLength, maxSubnetBits(vpc)
	if !vpcOK && strings.Contains(in.CIDR, ":") {
		maxBits = MaxSubnetBitsV6
	}
	switch {
	case bits < MinPoolBits || bits > maxBits:
		errs.add("prefixLength", fmt.Sprintf("prefixLength %d is out of range: %d to %d", bits, MinPoolBits, maxBits))
	case vpcOK && bits < vpc.Bits():
		errs.add("prefixLength", fmt.Sprintf("prefixLength %d is out of range for VPC %s's %s: %d to %d", bits, in.VPC, vpc, vpc.Bits(), maxBits))
	}
	count := cmp.Or(in.Count, 1)
	if count < 1 || count > MaxPreviewNext {
		errs.add("count", fmt.Sprintf("count %d is out of range: 1 to %d", in.Count, MaxPreviewNext))
	}
	if len(errs.errs) > 0 {
		return SubnetPreviewOutput{Errors: errs.errs}
	}
	out := SubnetPreviewOutput{Valid: true, Next: FreePrefixes(vpc, used, bits, count),
		Size: FigureOf(PrefixCount(vpc, bits)), Free: FigureOf(FreePrefixCount(vpc, used, bits))}
	if len(out.Next) == 0 {
		out.Errors = Errors{{Field: "prefixLength", Message: NoFreePrefix(in.VPC, bits, vpc)}}
	}
	return out
}

// SubnetPreviewJSON answers a SubnetPreviewInput written as JSON with a
// SubnetPreviewOutput written as JSON: the browser's entry point, like
// PreviewJSON. Input it cannot read is reported as an error of the field
// "input".
func SubnetPreviewJSON(in []byte) []byte {
	var out SubnetPreviewOutput
	var si SubnetPreviewInput
	if len(in) > MaxPreviewInput {
		out.Errors = Errors{{Field: "input", Message: fmt.Sprintf("input is %d bytes; at most %d are accepted", len(in), MaxPreviewInput)}}
	} else {
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&si); err != nil {
			out.Errors = Errors{{Field: "input", Message: "input is not a subnet preview request: " + err.Error()}}
		} else {
			out = SubnetPreview(si)
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		// Every field of SubnetPreviewOutput marshals; this cannot happen.
		panic(err)
	}
	return b
}
