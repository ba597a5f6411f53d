package web

import (
	"slices"
	"strconv"

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
	p.Predictions.Attach = claims.Predict(candidates.ClaimRequest{Interface: &candidates.InterfaceClaim{Subnet: subnet}})
	predictIPv6(p)
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
	// A subnet is asked for by its size or its CIDR; neither asks nothing.
	if p.Subnet.PrefixLength != "" || p.Subnet.CIDR != "" {
		bits, _ := strconv.Atoi(p.Subnet.PrefixLength)
		p.Predictions.Subnet = claims.Predict(candidates.ClaimRequest{Subnet: &candidates.SubnetSpec{CIDR: p.Subnet.CIDR, PrefixLength: bits, Gateway: p.Subnet.Gateway}})
	}
}
