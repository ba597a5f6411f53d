package web

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// predictClaims fills the predictions of the VPC page p's claim forms as
// they are drawn (what was typed into a refused one, else each select's
// first choice), from the claims the page carries, with the enumerator
// the page's script runs as WebAssembly: a browser without JavaScript
// reads what one with it would before the user types.
func predictClaims(p *views.VPCPageProps) {
	claims, err := candidates.ParseClaims(p.Overview.Claims)
	if err != nil {
		failed := candidates.ClaimPrediction{Errors: err.(candidates.Errors)}
		p.Predictions = views.ClaimPredictions{Attach: failed, FloatingIP: failed, Subnet: failed}
		return
	}
	subnet := p.Attach.Subnet
	if !slices.ContainsFunc(p.Overview.Subnets, func(s ipam.SubnetOverview) bool { return s.Subnet.Name == subnet }) && len(p.Overview.Subnets) > 0 {
		subnet = p.Overview.Subnets[0].Subnet.Name
	}
	p.Predictions.Attach = claims.Predict(candidates.ClaimRequest{Interface: attachClaim(*p, subnet)})
	zone := p.FloatingIP.Zone
	if zone == "" {
		zone = p.Overview.VPC.Zone
	}
	if !slices.Contains(p.Overview.Zones, zone) {
		zone = ""
		if len(p.Overview.Zones) > 0 {
			zone = p.Overview.Zones[0]
		}
	}
	p.Predictions.FloatingIP = claims.Predict(candidates.ClaimRequest{FloatingIP: &candidates.FloatingIPClaim{Zone: zone}})
	if req := subnetClaim(*p); req.Subnet != nil || req.IPv6Subnet != nil {
		p.Predictions.Subnet = claims.Predict(req)
	}
}

// attachClaim is the interface the attach form of p asks for in subnet:
// the VM the console knows by its hostname (ipam.ConsoleVM, whose uid the
// form carries for claims.js) and the NIC, which choose a stable opaque
// address. Before a hostname is typed, a VPC of stable opaque addresses
// predicts the IPv4 address only.
func attachClaim(p views.VPCPageProps, subnet string) *candidates.InterfaceClaim {
	nic, _ := ipam.ParseNIC(p.Attach.NIC)
	in := &candidates.InterfaceClaim{Subnet: subnet, VMUID: ipam.ConsoleVM(p.Overview.VPC.Namespace, p.Overview.VPC.Name, p.Attach.Hostname).UID, NIC: nic}
	if p.Overview.VPC.IPv6Addressing == ipam.StableOpaque && p.Attach.Hostname == "" {
		in.Family = string(ipam.IPv4)
	}
	return in
}

// subnetClaim is the subnet the create-subnet form of p asks for: by its
// size or its CIDR (neither asks nothing) and, in a dual-stack VPC, its
// IPv6 prefix by its CIDR or its size (64 unless chosen), as
// vpcSubnetCreate reads the form.
func subnetClaim(p views.VPCPageProps) candidates.ClaimRequest {
	var req candidates.ClaimRequest
	if f := p.Subnet; f.PrefixLength != "" || f.CIDR != "" {
		bits, _ := strconv.Atoi(f.PrefixLength)
		req.Subnet = &candidates.SubnetSpec{CIDR: f.CIDR, PrefixLength: bits, Gateway: f.Gateway}
	}
	if p.IPv6 != nil {
		req.IPv6Subnet = &candidates.SubnetSpec{CIDR: p.Subnet.IPv6CIDR}
		if p.Subnet.IPv6CIDR == "" {
			req.IPv6Subnet.PrefixLength, _ = strconv.Atoi(strings.TrimPrefix(cmp.Or(p.Subnet.IPv6PrefixLength, "64"), "/"))
		}
	}
	return req
}
