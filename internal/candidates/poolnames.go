package candidates

import (
	"net/netip"
	"strings"
)

// privatePoolPrefix starts the name of every VPC's private pool, and
// privatePoolSuffixV6 ends the name of its IPv6 one.
const (
	privatePoolPrefix   = "vpc-"
	privatePoolSuffixV6 = "-v6"
)

// PrivatePoolName is the name of the private pool of the VPC named vpc,
// made and removed with it: "vpc-<vpc>", in the VPC's namespace.
func PrivatePoolName(vpc string) string { return privatePoolPrefix + vpc }

// PrivatePoolNameV6 is the name of the IPv6 private pool of the VPC named
// vpc, made and removed with its IPv6 prefix: "vpc-<vpc>-v6".
func PrivatePoolNameV6(vpc string) string { return privatePoolPrefix + vpc + privatePoolSuffixV6 }

// PrivatePoolVPC is the reverse of PrivatePoolName: the name of the VPC
// whose private pool is named pool, and whether pool is named as a VPC's
// private pool is. A name such as "vpc-main-v6" is both VPC main-v6's
// IPv4 pool and VPC main's IPv6 one: PrivatePoolVPC reads it as the
// former, PrivatePoolVPCV6 as the latter, and the family of the pool's
// prefix says which it is.
func PrivatePoolVPC(pool string) (vpc string, ok bool) {
	return strings.CutPrefix(pool, privatePoolPrefix)
}

// PrivatePoolVPCV6 is the reverse of PrivatePoolNameV6: the name of the
// VPC whose IPv6 private pool is named pool, and whether pool is named as
// one is.
func PrivatePoolVPCV6(pool string) (vpc string, ok bool) {
	vpc, ok = strings.CutPrefix(pool, privatePoolPrefix)
	if !ok {
		return pool, false
	}
	if vpc, ok = strings.CutSuffix(vpc, privatePoolSuffixV6); !ok {
		return pool, false
	}
	return vpc, true
}

// AllocationName is the name of the allocation of a in the pool named
// pool: "<pool>-<address>", the address as netip writes it (RFC 5952 for
// IPv6) with every '.' and ':' written '-': vpc-main-10-42-1-7,
// vpc-main-v6-fd12-3456-789a-1--7. An address ending in "::" gives a name
// ending in "--" (uplinks-2001-db8-1--): the name is only shown and
// searched, never parsed back into the address, which its row holds.
func AllocationName(pool string, a netip.Addr) string {
	return pool + "-" + strings.Map(func(r rune) rune {
		if r == '.' || r == ':' {
			return '-'
		}
		return r
	}, a.WithZone("").String())
}
