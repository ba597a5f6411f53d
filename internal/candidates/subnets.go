package candidates

import (
	"fmt"
	"net/netip"
	"slices"
)

// A SubnetSpec is a new subnet of a VPC as the user writes it: its prefix
// (CIDR) or the length of the lowest free one (PrefixLength), one of them,
// and its gateway, the first host address unless given.
type SubnetSpec struct {
	CIDR         string `json:"cidr,omitempty"`
	PrefixLength int    `json:"prefixLength,omitempty"`
	Gateway      string `json:"gateway,omitempty"`
}

// A SubnetRequest is a validated SubnetSpec: a prefix, or the length of
// the lowest free one.
type SubnetRequest struct {
	Prefix  netip.Prefix // the zero Prefix when asked for by length
	Bits    int          // the length asked for; 0 with a Prefix
	Gateway netip.Addr   // the zero Addr for the first host address
}

// ParseSubnetSpec checks what can be checked of spec, the IPv4 prefix of a
// subnet, without its VPC. The error, if any, is an Errors holding the
// first mistake of its prefix (cidr or prefixLength) and that of its
// gateway.
func ParseSubnetSpec(spec SubnetSpec) (SubnetRequest, error) { return parseSubnetSpec(spec, false) }

// ParseSubnetSpecV6 is ParseSubnetSpec for the IPv6 prefix of a subnet of
// a dual-stack VPC: a prefix of up to MaxSubnetBitsV6 bits, its gateway an
// IPv6 address.
func ParseSubnetSpecV6(spec SubnetSpec) (SubnetRequest, error) { return parseSubnetSpec(spec, true) }

// MaxSubnetBitsV6 is the longest IPv6 prefix of a subnet: a /128 leaves no
// address once its gateway is reserved.
const MaxSubnetBitsV6 = 127

// maxSubnetBits returns the longest prefix of a subnet of p's family.
func maxSubnetBits(p netip.Prefix) int {
	if p.Addr().Is6() {
		return MaxSubnetBitsV6
	}
	return MaxSubnetBits
}

func parseSubnetSpec(spec SubnetSpec, six bool) (SubnetRequest, error) {
	var errs errorList
	var r SubnetRequest
	maxBits, family, example := MaxSubnetBits, "IPv4", "10.0.0.1"
	if six {
		maxBits, family, example = MaxSubnetBitsV6, "IPv6", "2001:db8::1"
	}
	switch {
	case spec.CIDR != "" && spec.PrefixLength != 0:
		errs.add("cidr", "cidr and prefixLength both name the subnet's prefix: give one of them")
	case spec.CIDR == "" && spec.PrefixLength == 0:
		errs.add("cidr", "cidr or prefixLength is required: the subnet's prefix, or its length to take the lowest free one")
	case spec.CIDR != "":
		pool, err := ParsePool(PoolSpec{CIDR: spec.CIDR})
		switch {
		case err != nil:
			errs.errs = err.(Errors)[:1]
		case pool.Prefix.Addr().Is6() && !six:
			errs.add("cidr", fmt.Sprintf("cidr %s is not IPv4: give the subnet's IPv4 prefix as cidr, and an IPv6 one as ipv6Cidr", pool.Prefix))
		case pool.Prefix.Addr().Is4() && six:
			// Its callers name this field ipv6Cidr (ipv6Field).
			errs.add("cidr", fmt.Sprintf("cidr %s is not an IPv6 prefix: give the subnet's IPv4 prefix as cidr", pool.Prefix))
		case pool.Prefix.Bits() == maxBits+1:
			errs.add("cidr", fmt.Sprintf("cidr %s leaves no address once the gateway is reserved; use a /%d or larger", pool.Prefix, maxBits))
		default:
			r.Prefix = pool.Prefix
		}
	case spec.PrefixLength < MinPoolBits || spec.PrefixLength > maxBits:
		errs.add("prefixLength", fmt.Sprintf("prefixLength %d is out of range: %d to %d", spec.PrefixLength, MinPoolBits, maxBits))
	default:
		r.Bits = spec.PrefixLength
	}
	if spec.Gateway != "" {
		gw, err := netip.ParseAddr(spec.Gateway)
		switch {
		case err != nil || gw.Is6() != six:
			errs.add("gateway", fmt.Sprintf("gateway %s is not an %s address such as %s", quote(spec.Gateway), family, example))
		case six && (gw.Zone() != "" || !canonical6(gw, spec.Gateway)):
			errs.add("gateway", fmt.Sprintf("gateway %s is not in canonical form; did you mean %s?", quote(spec.Gateway), gw.WithZone("")))
		}
		r.Gateway = gw
	}
	if err := errs.err(); err != nil {
		return SubnetRequest{}, err
	}
	return r, nil
}

// A NamedPrefix is a subnet as messages name it.
type NamedPrefix struct {
	Name   string
	Prefix netip.Prefix
}

// A VPCLayout is a VPC's prefix and its subnets, which new subnets are
// planned in.
type VPCLayout struct {
	Name    string // the VPC's, as messages name it
	Prefix  netip.Prefix
	Subnets []NamedPrefix // in any order
}

// A SubnetPlan is what a new subnet gets: its prefix and its gateway.
type SubnetPlan struct {
	Prefix  netip.Prefix
	Gateway netip.Addr
}

// Plan says which prefix and gateway the subnet req gets in the VPC: the
// prefix asked for, if it lies inside the VPC and overlaps none of its
// subnets, or the lowest free aligned block of the length asked for; the
// gateway asked for, if it is a host address of that prefix, or the
// first host address (DefaultGateway).
//
// The error says why not: an *OverlapError, a *NoFreePrefixError, or an
// Errors holding the mistake. When only the gateway is refused, the plan
// holds the prefix the subnet would get.
func (l VPCLayout) Plan(req SubnetRequest) (SubnetPlan, error) { return l.plan(req, nil) }

// plan is Plan with the VPC's subnets as usedPrefixes when used is not
// nil: Claims computes them once for every prediction of a page.
func (l VPCLayout) plan(req SubnetRequest, used *usedPrefixes) (SubnetPlan, error) {
	var plan SubnetPlan
	if req.Prefix.IsValid() {
		if req.Prefix.Bits() < l.Prefix.Bits() || !l.Prefix.Contains(req.Prefix.Addr()) {
			return plan, Errors{{Field: "cidr", Message: fmt.Sprintf("cidr %s is outside VPC %s's %s", req.Prefix, l.Name, l.Prefix)}}
		}
		if other, ok := l.overlapping(req.Prefix); ok {
			return plan, &OverlapError{VPC: l.Name, Prefix: req.Prefix, Subnet: other}
		}
		plan.Prefix = req.Prefix
	} else {
		if req.Bits < l.Prefix.Bits() || req.Bits > maxSubnetBits(l.Prefix) {
			return plan, Errors{{Field: "prefixLength", Message: fmt.Sprintf("prefixLength %d is out of range for VPC %s's %s: %d to %d", req.Bits, l.Name, l.Prefix, l.Prefix.Bits(), maxSubnetBits(l.Prefix))}}
		}
		if used == nil {
			u := l.used()
			used = &u
		}
		free := used.free(req.Bits, 1)
		if len(free) == 0 {
			return plan, &NoFreePrefixError{VPC: l.Name, Bits: req.Bits, Scope: l.Prefix}
		}
		plan.Prefix = free[0]
	}
	if !req.Gateway.IsValid() {
		plan.Gateway = DefaultGateway(plan.Prefix)
		return plan, nil
	}
	if msg := hostAddressProblem(req.Gateway, plan.Prefix); msg != "" {
		return plan, Errors{{Field: "gateway", Message: "gateway " + req.Gateway.String() + " " + msg}}
	}
	plan.Gateway = req.Gateway
	return plan, nil
}

// used returns the VPC's subnets inside its prefix.
func (l VPCLayout) used() usedPrefixes {
	used := make([]netip.Prefix, len(l.Subnets))
	for i, s := range l.Subnets {
		used[i] = s.Prefix
	}
	return newUsedPrefixes(l.Prefix, used)
}

// overlapping returns the lowest subnet of the VPC that overlaps p.
func (l VPCLayout) overlapping(p netip.Prefix) (NamedPrefix, bool) {
	var found []NamedPrefix
	for _, s := range l.Subnets {
		if s.Prefix.Overlaps(p) {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		return NamedPrefix{}, false
	}
	return slices.MinFunc(found, func(a, b NamedPrefix) int { return a.Prefix.Addr().Compare(b.Prefix.Addr()) }), true
}

// DefaultGateway returns the gateway of a subnet that names none: its
// first host address (its first address for a /31 or a /32). The first
// host address of an IPv6 prefix is the one after its subnet-router
// anycast address (its first address for a /127 or a /128).
func DefaultGateway(p netip.Prefix) netip.Addr {
	if p.Addr().Is6() {
		if p.Bits() <= maxAnycastBits {
			return p.Addr().Next()
		}
		return p.Addr()
	}
	if p.Bits() <= 30 {
		return p.Addr().Next()
	}
	return p.Addr()
}

// An OverlapError says that a new subnet's prefix overlaps a subnet of its
// VPC.
type OverlapError struct {
	VPC    string
	Prefix netip.Prefix
	Subnet NamedPrefix
}

func (e *OverlapError) Error() string {
	return fmt.Sprintf("cidr %s overlaps subnet %s (%s) of VPC %s", e.Prefix, e.Subnet.Name, e.Subnet.Prefix, e.VPC)
}

// A NoFreePrefixError says that a VPC has no free prefix of a length for
// a new subnet.
type NoFreePrefixError struct {
	VPC   string
	Bits  int
	Scope netip.Prefix // the VPC's prefix
}

func (e *NoFreePrefixError) Error() string { return NoFreePrefix(e.VPC, e.Bits, e.Scope) }

// NoFreePrefix is the message of a VPC with no free prefix of length bits
// in scope, its prefix.
func NoFreePrefix(vpc string, bits int, scope netip.Prefix) string {
	return fmt.Sprintf("vpc %s has no free /%d in %s", vpc, bits, scope)
}

// NoFreeAddress is the message of a claim that finds no free candidate of
// the pool in scope (the request's within, or the pool's prefix).
func NoFreeAddress(pool string, scope netip.Prefix) string {
	return fmt.Sprintf("pool %s has no free address in %s", pool, scope)
}

// NoFreeAddressInZone is the message of a claim that finds no free
// candidate in any public pool of the zone.
func NoFreeAddressInZone(zone string) string {
	return fmt.Sprintf("zone %s has no free address in its public pools", zone)
}

// NoSubnet is the message of a claim in a VPC that has no subnet yet.
func NoSubnet(namespace, vpc string) string {
	return fmt.Sprintf("VPC %s/%s has no subnet: create one, then allocate within it", namespace, vpc)
}

// NoPublicPool is the message of a claim in a zone that has no public pool.
func NoPublicPool(zone string) string {
	return fmt.Sprintf("zone %s has no public pool", zone)
}
