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

// A VLAN pool whose range 100-199 weighs more than 1000-1999: a site's
// VLANs get the lowest free number of 100-199 first, then of 1000-1999.
// The server keeps each site's taken numbers in a NumberSetBuilder.
func ExampleNumberPool_First() {
	pool, err := candidates.ParseNumberPool([]candidates.NumberRange{
		{Start: 100, End: 199, Weight: 10},
		{Start: 1000, End: 1999, Weight: 1},
	})
	if err != nil {
		panic(err)
	}
	var siteA candidates.NumberSetBuilder
	siteA.Add(100)
	siteA.Add(101)
	fmt.Println(pool.First(siteA.View()))
	for n := int64(102); n <= 199; n++ {
		siteA.Add(n)
	}
	fmt.Println(pool.NextN(siteA.View(), 3), pool.Used(siteA.View()), siteA.View())

	_, err = candidates.ParseNumberPool([]candidates.NumberRange{{Start: 100, End: 199, Weight: 1}, {Start: 150, End: 250, Weight: 1}})
	fmt.Println(err)
	// Output:
	// 102 true
	// [1000 1001 1002] [100 0] 100-199
	// ranges 100-199 and 150-250 overlap
}
