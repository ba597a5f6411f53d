package candidates_test

import (
	"fmt"
	"net/netip"

	"pivirt.hu/ipam/internal/candidates"
)

// The next free /24s of a VPC whose subnets are 10.42.0.0/24 and
// 10.42.2.0/23: the hole at 10.42.1.0 comes first.
func ExampleFreePrefixes() {
	vpc := netip.MustParsePrefix("10.42.0.0/16")
	subnets := []netip.Prefix{
		netip.MustParsePrefix("10.42.2.0/23"),
		netip.MustParsePrefix("10.42.0.0/24"),
	}
	fmt.Println(candidates.FreePrefixes(vpc, subnets, 24, 3))
	// Output: [10.42.1.0/24 10.42.4.0/24 10.42.5.0/24]
}
