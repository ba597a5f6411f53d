package ipam

import (
	"cmp"
	"context"
	"net/netip"

	"pivirt.hu/ipam/internal/auth"
)

// PreviewSubnetFamily returns the next count free prefixes of length bits
// that subnets of the VPC would get in its prefix of family f, lowest
// first; nothing is stored. IPv4 is PreviewSubnet. IPv6 is the VPC's IPv6
// prefix less its subnets' IPv6 prefixes, the lowest free aligned prefixes
// CreateSubnet gives for ipv6PrefixLength (bits 0 is its default, 64); a
// VPC without an IPv6 prefix is refused, saying how to have one.
func (s *Service) PreviewSubnetFamily(ctx context.Context, actor auth.Actor, namespace, vpc string, f Family, bits, count int) ([]netip.Prefix, error) {
	if err := checkFamily("family", f); err != nil {
		return nil, err
	}
	if f != IPv6 {
		return s.PreviewSubnet(ctx, actor, namespace, vpc, bits, count)
	}
	v, err := s.VPC(ctx, actor, namespace, vpc)
	if err != nil {
		return nil, err
	}
	if !v.IPv6CIDR.IsValid() {
		return nil, invalid("family", "VPC %s/%s has no IPv6 prefix, and a VPC's never changes: create a dual-stack VPC, with ipv6Cidr (a prefix such as a ULA /48) or ipv6PrefixLength (a prefix delegated from its zone's public pools), and its subnets there", v.Namespace, v.Name)
	}
	layout, err := vpcLayout(ctx, s.db, v, IPv6)
	if err != nil {
		return nil, err
	}
	return nextSubnets(layout, cmp.Or(bits, defaultIPv6SubnetBits), count)
}
