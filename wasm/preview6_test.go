//go:build !js

package main

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/candidates"
)

// preview6Inputs is the differential table for IPv6 inputs: pools, their
// refusals, explanations, maps of small prefixes, taken lists of both
// families.
var preview6Inputs = []any{
	`{"pool":{"cidr":"2001:db8::/64"},"next":4}`,
	`{"pool":{"cidr":"2001:db8::/64","gateway":"2001:db8::1","exclude":["2001:db8::2-2001:db8::ff"]},"taken":["2001:db8::100-2001:db8::1ff","2001:db8::ffff:ffff:ffff:ffff"],"next":3,"explain":["2001:db8::","2001:db8::1","2001:db8::5","2001:db8::100","2001:db8::200","2001:db8:1::","2001:DB8::200","10.0.0.1"]}`,
	`{"pool":{"cidr":"fd12:3456:789a::/48"},"request":{"within":"fd12:3456:789a:1::/64","reserved":["fd12:3456:789a:1::1"]},"takenRanges":"fd12:3456:789a:1::2-fd12:3456:789a:1::9,10.0.0.1","next":2}`,
	`{"pool":{"cidr":"2001:db8::/120","gateway":"2001:db8::1"},"taken":["2001:db8::5"],"map":true}`,
	`{"pool":{"cidr":"2001:db8::/127"},"next":3}`,
	`{"pool":{"cidr":"2001:db8::7/128"},"taken":["2001:db8::7"]}`,
	`{"pool":{"cidr":"2000::/8"},"map":true}`,
	`{"pool":{"cidr":"2001:DB8:0::/32","gateway":"2001:db8::0:1","exclude":["10.0.0.1","2001:db8::9-2001:db8::1"]}}`,
	`{"pool":{"cidr":"2001:db8::1/32"}}`,
	`{"pool":{"cidr":"2001:db8::/64"},"explain":["2001:db8::g"],"taken":["2001:db8::1-10.0.0.1"]}`,
	`{"name":"uplinks","zone":"zone-a","pool":{"cidr":"2001:db8:ff::/64","gateway":"2001:db8:ff::1"}}`,
	[2]string{`{"pool":{"cidr":"2001:db8::/64"},"next":2}`, "2001:db8::1-2001:db8::3,2001:db8::5"},
	[2]string{`{"pool":{"cidr":"2001:db8::/64"}}`, "2001:DB8::1"},
	call{"ipamPreviewSubnet", []any{`{"vpc":"main","cidr":"fd12:3456:789a::/48","subnets":["fd12:3456:789a::/64","fd12:3456:789a:2::/63"],"prefixLength":64,"count":3}`}},
	call{"ipamPreviewSubnet", []any{`{"vpc":"isp","cidr":"2001:db8::/32","subnets":["2001:db8::/56"],"prefixLength":56}`}},
	call{"ipamPreviewSubnet", []any{`{"vpc":"main","cidr":"fd12:3456:789a::/48","prefixLength":128}`}},
	call{"ipamPreviewSubnet", []any{`{"vpc":"main","cidr":"fd12:3456:789a:0::/48","prefixLength":64}`}},
	call{"ipamPredictClaim", []any{claimsDualStack(""), `{"interface":{"subnet":"web"}}`}},
	call{"ipamPredictClaim", []any{claimsDualStack(""), `{"interface":{"subnet":"web","family":"IPV6"}}`}},
	call{"ipamPredictClaim", []any{claimsDualStack(""), `{"subnet":{"prefixLength":24},"ipv6Subnet":{"prefixLength":64}}`}},
	call{"ipamPredictClaim", []any{claimsDualStack(""), `{"ipv6Subnet":{"cidr":"fd12:3456:789a:1::/64"}}`}},
	call{"ipamPredictClaim", []any{claimsDualStack("STABLE_OPAQUE"), `{"interface":{"subnet":"web","vmUid":"6f1c0c1e-8d0b-4c52-9a52-4b1f3c2e7d10","nic":0}}`}},
	call{"ipamPredictClaim", []any{claimsDualStack("STABLE_OPAQUE"), `{"interface":{"subnet":"web","vmUid":"6f1c0c1e-8d0b-4c52-9a52-4b1f3c2e7d10","nic":1,"family":"IPV6"}}`}},
}

// claimsDualStack is a dual-stack VPC's claims: subnet web has both
// families, its IPv6 addresses taken up to ::9.
func claimsDualStack(addressing string) string {
	b, _ := json.Marshal(candidates.ClaimsSpec{
		Namespace: "acme/prod", VPC: "main",
		Pool:           candidates.ClaimPool{Name: "vpc-main", PoolSpec: candidates.PoolSpec{CIDR: "10.42.0.0/16"}},
		PoolV6:         &candidates.ClaimPool{Name: "vpc-main-v6", PoolSpec: candidates.PoolSpec{CIDR: "fd12:3456:789a::/48"}},
		IPv6Addressing: addressing, OpaqueKey: []byte("vpc main key"),
		Subnets: []candidates.ClaimSubnet{{Name: "web", CIDR: "10.42.1.0/24", Gateway: "10.42.1.1", IPv6CIDR: "fd12:3456:789a:1::/64", IPv6Gateway: "fd12:3456:789a:1::1",
			Taken: "10.42.1.2-10.42.1.4,fd12:3456:789a:1::2-fd12:3456:789a:1::9"}},
	})
	return string(b)
}

// TestPreviewMatchesServerIPv6: the module answers IPv6 inputs as the
// server does, byte for byte; and it logs what the browser spends on the
// next address of a /64 holding 100 000 addresses in fragments and on the
// next /64 of a /48 holding 10 000 subnets.
func TestPreviewMatchesServerIPv6(t *testing.T) {
	inputs := append([]any{}, preview6Inputs...)
	list := fragmentedList6(100_000)
	subnets := manySubnets6(10_000)
	inputs = append(inputs,
		[2]string{`{"pool":{"cidr":"2001:db8::/64"},"next":1}`, list},
		[2]string{`{"pool":{"cidr":"2001:db8::/64"},"next":1}`, list},
		call{"ipamPreviewSubnet", []any{subnets}},
		call{"ipamPredictClaim", []any{manyClaims6(10_000), `{"ipv6Subnet":{"prefixLength":64}}`}},
		call{"ipamPredictClaim", []any{manyClaims6(10_000), `{"ipv6Subnet":{"prefixLength":64}}`}},
	)
	answers := runInNode(t, inputs)
	checkAnswers(t, inputs, answers)
	n := len(preview6Inputs)
	t.Logf("the next address of a /64 with 100000 taken in fragments, in wasm: %.2f ms parsing the list, then %.2f ms per call", answers[n].Ms, answers[n+1].Ms)
	t.Logf("the next /64 of a /48 with 10000 subnets, in wasm: %.2f ms in the JSON; %.2f ms parsing the VPC's claims, then %.2f ms per call",
		answers[n+2].Ms, answers[n+3].Ms, answers[n+4].Ms)
}

// fragmentedList6 is n taken addresses of 2001:db8::/64, every other one
// from ::1, as the compact list a page carries.
func fragmentedList6(n int) string {
	taken := make([]string, 0, n)
	for i := range n {
		v := 1 + 2*i
		taken = append(taken, netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 13: byte(v >> 16), 14: byte(v >> 8), 15: byte(v)}).String())
	}
	return strings.Join(taken, ",")
}

// manyClaims6 is a dual-stack VPC whose n subnets hold the lowest /28s of
// 10.0.0.0/8 and the lowest /64s of fd12:3456:789a::/48.
func manyClaims6(n int) string {
	spec := candidates.ClaimsSpec{Namespace: "acme/prod", VPC: "big",
		Pool:   candidates.ClaimPool{Name: "vpc-big", PoolSpec: candidates.PoolSpec{CIDR: "10.0.0.0/8"}},
		PoolV6: &candidates.ClaimPool{Name: "vpc-big-v6", PoolSpec: candidates.PoolSpec{CIDR: "fd12:3456:789a::/48"}}}
	for i := range n {
		p4 := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 12), byte(i >> 4), byte(i << 4)}), 28)
		p6 := netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0x12, 0x34, 0x56, 0x78, 0x9a, byte(i >> 8), byte(i)}), 64)
		spec.Subnets = append(spec.Subnets, candidates.ClaimSubnet{Name: fmt.Sprintf("s-%d", i), CIDR: p4.String(), Gateway: p4.Addr().Next().String(),
			IPv6CIDR: p6.String(), IPv6Gateway: p6.Addr().Next().String()})
	}
	b, _ := json.Marshal(spec)
	return string(b)
}

// manySubnets6 asks for the next /64 of fd12:3456:789a::/48 holding n /64
// subnets, every other one.
func manySubnets6(n int) string {
	in := candidates.SubnetPreviewInput{VPC: "big", CIDR: "fd12:3456:789a::/48", PrefixLength: 64, Count: 1}
	for i := range n {
		in.Subnets = append(in.Subnets, fmt.Sprintf("fd12:3456:789a:%x::/64", 2*i))
	}
	b, _ := json.Marshal(in)
	return string(b)
}
