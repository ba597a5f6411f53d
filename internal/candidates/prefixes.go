package candidates

import "net/netip"

// FreePrefixes returns, lowest first, up to count prefixes of length bits
// inside parent that overlap none of used (used may be unsorted,
// overlapping, partly or wholly outside parent).
//
// It is how the next free subnet of a size is chosen: the used prefixes are
// the VPC's subnets, and the answer is its lowest free aligned blocks. Like
// the rest of the package it works on IPv4 only: parent must be an IPv4
// prefix, and used prefixes that are not IPv4 are ignored. Neither parent
// nor used need be canonical: their host bits are masked. A bits shorter
// than parent's or longer than 32, or a count below 1, gives nil.
//
// The cost grows with the number of used prefixes and of answers, not with
// the size of parent: a used range is jumped over in one step.
func FreePrefixes(parent netip.Prefix, used []netip.Prefix, bits, count int) []netip.Prefix {
	if !parent.IsValid() || !parent.Addr().Is4() || bits < parent.Bits() || bits > 32 || count < 1 {
		return nil
	}
	lo, hi := prefixBounds(parent.Masked())
	var b SetBuilder
	b.spans = make([]span, 0, len(used))
	for _, p := range used {
		if !p.IsValid() || !p.Addr().Is4() {
			continue
		}
		if ulo, uhi := prefixBounds(p.Masked()); ulo <= hi && uhi >= lo {
			b.spans = append(b.spans, span{max(ulo, lo), min(uhi, hi)})
		}
	}
	taken := b.normalized().spans

	size := uint64(1) << (32 - bits)
	blocks := (uint64(hi) - uint64(lo) + 1) / size
	// Room for a page's worth of answers; more grow the slice as needed.
	out := make([]netip.Prefix, 0, min(uint64(count), blocks, 64))
	cur, end := uint64(lo), uint64(hi)
	for _, t := range taken {
		// Every block that ends before t starts is free.
		for ; cur+size-1 < uint64(t.lo); cur += size {
			out = append(out, netip.PrefixFrom(addr(uint32(cur)), bits))
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
		out = append(out, netip.PrefixFrom(addr(uint32(cur)), bits))
		if len(out) == count {
			break
		}
	}
	return out
}
