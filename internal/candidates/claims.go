package candidates

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
)

// A ClaimsSpec is what a VPC's page carries to predict, before anything is
// submitted, what each of its claims will get: a VM interface in a subnet,
// a floating IP in a zone, a new subnet. Taken addresses are compact range
// lists (see RangeList).
type ClaimsSpec struct {
	Namespace string `json:"namespace"`
	VPC       string `json:"vpc"`
	// Pool is the VPC's own pool; its taken addresses are its subnets'.
	Pool ClaimPool `json:"pool"`
	// PoolV6 is the VPC's IPv6 pool (PrivatePoolNameV6), when it has an
	// IPv6 prefix.
	PoolV6 *ClaimPool `json:"poolV6,omitempty"`
	// IPv6Addressing is how interfaces get IPv6 addresses: LowestFree
	// (also when empty) or StableOpaque, with the VPC's OpaqueKey
	// (base64 in JSON).
	IPv6Addressing string        `json:"ipv6Addressing,omitempty"`
	OpaqueKey      []byte        `json:"opaqueKey,omitempty"`
	Subnets        []ClaimSubnet `json:"subnets,omitempty"`
	// Zones lists, for each zone, its public pools in the order a floating
	// IP is claimed from them.
	Zones []ClaimZone `json:"zones,omitempty"`
}

// A ClaimPool is a pool a claim is made in, with its taken addresses.
type ClaimPool struct {
	Name string `json:"name"`
	PoolSpec
	Taken string `json:"taken,omitempty"`
}

// A ClaimSubnet is a subnet of the VPC with the taken addresses in it, of
// both families when it has an IPv6 prefix too.
type ClaimSubnet struct {
	Name        string `json:"name"`
	CIDR        string `json:"cidr"`
	Gateway     string `json:"gateway"`
	IPv6CIDR    string `json:"ipv6Cidr,omitempty"`
	IPv6Gateway string `json:"ipv6Gateway,omitempty"` // "" when the IPv6 prefix has none
	Taken       string `json:"taken,omitempty"`
}

// The ways a VPC's interfaces get IPv6 addresses (ClaimsSpec.IPv6Addressing).
const (
	LowestFree   = "LOWEST_FREE"
	StableOpaque = "STABLE_OPAQUE"
)

// A ClaimZone is a zone and its public pools.
type ClaimZone struct {
	Name  string      `json:"name"`
	Pools []ClaimPool `json:"pools"`
}

// Claims answers what the claims of a ClaimsSpec will get, computed as the
// server claims: the lowest free candidate, in the first pool that has one.
type Claims struct {
	namespace, vpc string
	layout         VPCLayout
	subnets        map[string]claimSpace
	zones          map[string][]claimSpace
	// The VPC's IPv6 prefix and its subnets' IPv6 spaces, when it has one;
	// the key of its opaque addresses, when it takes them.
	layoutV6  *VPCLayout
	subnetsV6 map[string]claimSpace
	opaque    bool
	opaqueKey []byte
	// The subnets of each layout, computed once for every prediction.
	used, usedV6 *usedPrefixes
}

// claimSpace is the candidates of one claim and what is taken of them.
type claimSpace struct {
	pool  string
	space Space
	taken Set
}

// ParseClaims reads spec. The error, if any, is an Errors listing every
// mistake, each naming its field (subnets[0].taken, zones[1].pools[0].cidr).
func ParseClaims(spec ClaimsSpec) (*Claims, error) {
	var errs errorList
	c := &Claims{namespace: spec.Namespace, vpc: spec.VPC, subnets: map[string]claimSpace{}, zones: map[string][]claimSpace{}}
	vpcPool, ok := parseClaimPool(&errs, "pool", spec.Pool)
	c.layout = VPCLayout{Name: spec.VPC, Prefix: vpcPool.Prefix}
	for i, sub := range spec.Subnets {
		field := fmt.Sprintf("subnets[%d]", i)
		taken := parseTaken(&errs, field+".taken", sub.Taken)
		if !ok {
			continue
		}
		req, err := vpcPool.ParseRequest(RequestSpec{Within: sub.CIDR, Reserved: []string{sub.Gateway}})
		if err != nil {
			// The request's within is the subnet's cidr, its reserved
			// address the gateway.
			for _, e := range err.(Errors) {
				name := map[string]string{"within": "cidr", "reserved[0]": "gateway"}[e.Field]
				errs.add(field+"."+name, field+"."+name+strings.TrimPrefix(e.Message, e.Field))
			}
			continue
		}
		c.layout.Subnets = append(c.layout.Subnets, NamedPrefix{Name: sub.Name, Prefix: req.Within})
		c.subnets[sub.Name] = claimSpace{pool: spec.Pool.Name, space: vpcPool.Space(req), taken: taken}
	}
	parseClaimsV6(&errs, c, spec)
	if ok {
		u := c.layout.used()
		c.used = &u
	}
	if c.layoutV6 != nil {
		u := c.layoutV6.used()
		c.usedV6 = &u
	}
	for i, zone := range spec.Zones {
		for j, p := range zone.Pools {
			field := fmt.Sprintf("zones[%d].pools[%d]", i, j)
			pool, ok := parseClaimPool(&errs, field, p)
			taken := parseTaken(&errs, field+".taken", p.Taken)
			if ok {
				c.zones[zone.Name] = append(c.zones[zone.Name], claimSpace{pool: p.Name, space: pool.Candidates(), taken: taken})
			}
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return c, nil
}

// parseClaimsV6 reads the IPv6 part of spec into c.
func parseClaimsV6(errs *errorList, c *Claims, spec ClaimsSpec) {
	switch spec.IPv6Addressing {
	case "", LowestFree:
	case StableOpaque:
		c.opaque, c.opaqueKey = true, spec.OpaqueKey
	default:
		errs.add("ipv6Addressing", fmt.Sprintf("ipv6Addressing %s is not %s or %s", quote(spec.IPv6Addressing), LowestFree, StableOpaque))
	}
	var pool Pool
	ok := spec.PoolV6 != nil
	if ok {
		if pool, ok = parseClaimPool(errs, "poolV6", *spec.PoolV6); ok && !pool.Prefix.Addr().Is6() {
			errs.add("poolV6.cidr", fmt.Sprintf("poolV6.cidr %s is not IPv6", pool.Prefix))
			ok = false
		}
	}
	if ok {
		c.layoutV6 = &VPCLayout{Name: spec.VPC, Prefix: pool.Prefix}
		c.subnetsV6 = map[string]claimSpace{}
	}
	for i, sub := range spec.Subnets {
		field := fmt.Sprintf("subnets[%d]", i)
		switch {
		case sub.IPv6CIDR == "":
			continue
		case spec.PoolV6 == nil:
			errs.add(field+".ipv6Cidr", fmt.Sprintf("%s.ipv6Cidr %s: the VPC has no IPv6 prefix (poolV6)", field, sub.IPv6CIDR))
			continue
		case !ok:
			continue
		}
		taken, _ := ParseRangeList(field+".taken", sub.Taken)
		rs := RequestSpec{Within: sub.IPv6CIDR}
		if sub.IPv6Gateway != "" {
			rs.Reserved = []string{sub.IPv6Gateway}
		}
		req, err := pool.ParseRequest(rs)
		if err != nil {
			for _, e := range err.(Errors) {
				name := map[string]string{"within": "ipv6Cidr", "reserved[0]": "ipv6Gateway"}[e.Field]
				errs.add(field+"."+name, field+"."+name+strings.TrimPrefix(e.Message, e.Field))
			}
			continue
		}
		c.layoutV6.Subnets = append(c.layoutV6.Subnets, NamedPrefix{Name: sub.Name, Prefix: req.Within})
		c.subnetsV6[sub.Name] = claimSpace{pool: spec.PoolV6.Name, space: pool.Space(req), taken: taken}
	}
}

func parseClaimPool(errs *errorList, field string, p ClaimPool) (Pool, bool) {
	pool, err := ParsePool(p.PoolSpec)
	if err != nil {
		errs.addAll(field+".", err.(Errors))
		return Pool{}, false
	}
	return pool, true
}

func parseTaken(errs *errorList, field, list string) Set {
	taken, err := ParseRangeList(field, list)
	if err != nil {
		errs.errs = append(errs.errs, err.(Errors)...)
	}
	return taken
}

// Interface returns the address a VM interface attached in the subnet
// will get, or why it gets none.
func (c *Claims) Interface(subnet string) (netip.Addr, error) {
	if subnet == "" && len(c.subnets) == 0 {
		return netip.Addr{}, Errors{{Field: "subnet", Message: NoSubnet(c.namespace, c.vpc)}}
	}
	cs, ok := c.subnets[subnet]
	if !ok {
		return netip.Addr{}, Errors{{Field: "subnet", Message: fmt.Sprintf("subnet %s/%s/%s not found", c.namespace, c.vpc, subnet)}}
	}
	if a, ok := cs.space.First(cs.taken); ok {
		return a, nil
	}
	return netip.Addr{}, Errors{{Field: "subnet", Message: NoFreeAddress(cs.pool, cs.space.Scope())}}
}

// InterfaceV6 returns the IPv6 address the interface nic of the VM whose
// uid is vmUID, attached in the subnet, will get: the lowest free
// candidate, or its stable opaque address (Space.NextOpaque) when the VPC
// takes them; or why it gets none.
func (c *Claims) InterfaceV6(subnet, vmUID string, nic int) (netip.Addr, error) {
	if _, ok := c.subnets[subnet]; !ok {
		return c.Interface(subnet)
	}
	cs, ok := c.subnetsV6[subnet]
	if !ok {
		return netip.Addr{}, Errors{{Field: "subnet", Message: NoIPv6Prefix(c.namespace, c.vpc, subnet)}}
	}
	var a netip.Addr
	if c.opaque {
		a, ok = cs.space.NextOpaque(cs.taken, c.opaqueKey, vmUID, nic)
	} else {
		a, ok = cs.space.First(cs.taken)
	}
	if ok {
		return a, nil
	}
	return netip.Addr{}, Errors{{Field: "subnet", Message: NoFreeAddress(cs.pool, cs.space.Scope())}}
}

// NoIPv6Prefix is the message of an IPv6 claim in a subnet that has no
// IPv6 prefix.
func NoIPv6Prefix(namespace, vpc, subnet string) string {
	return fmt.Sprintf("subnet %s/%s/%s has no IPv6 prefix", namespace, vpc, subnet)
}

// SubnetV6 returns the IPv6 prefix and gateway a new subnet of spec will
// get in the VPC's IPv6 prefix, as VPCLayout.Plan says.
func (c *Claims) SubnetV6(spec SubnetSpec) (SubnetPlan, error) {
	if c.layoutV6 == nil {
		return SubnetPlan{}, Errors{{Field: "ipv6Cidr", Message: fmt.Sprintf("VPC %s/%s has no IPv6 prefix", c.namespace, c.vpc)}}
	}
	req, err := ParseSubnetSpecV6(spec)
	if err != nil {
		return SubnetPlan{}, err
	}
	return c.layoutV6.plan(req, c.usedV6)
}

// FloatingIP returns the address a floating IP claimed in the zone will
// get: the lowest free one of the first of its public pools that has one.
func (c *Claims) FloatingIP(zone string) (netip.Addr, error) {
	pools, ok := c.zones[zone]
	switch {
	case !ok && zone == "":
		return netip.Addr{}, Errors{{Field: "zone", Message: "no zone has a public pool"}}
	case !ok:
		return netip.Addr{}, Errors{{Field: "zone", Message: NoPublicPool(zone)}}
	}
	for _, cs := range pools {
		if a, ok := cs.space.First(cs.taken); ok {
			return a, nil
		}
	}
	return netip.Addr{}, Errors{{Field: "zone", Message: NoFreeAddressInZone(zone)}}
}

// Subnet returns the prefix and gateway a new subnet of spec will get, or
// why it gets none, as VPCLayout.Plan says.
func (c *Claims) Subnet(spec SubnetSpec) (SubnetPlan, error) {
	req, err := ParseSubnetSpec(spec)
	if err != nil {
		return SubnetPlan{}, err
	}
	return c.layout.plan(req, c.used)
}

// A ClaimRequest asks what one claim will get: an interface, a floating
// IP, or a new subnet (Subnet, IPv6Subnet or both, a dual-stack one).
type ClaimRequest struct {
	Interface  *InterfaceClaim  `json:"interface,omitempty"`
	FloatingIP *FloatingIPClaim `json:"floatingIP,omitempty"`
	Subnet     *SubnetSpec      `json:"subnet,omitempty"`
	IPv6Subnet *SubnetSpec      `json:"ipv6Subnet,omitempty"`
	// Name, when given, is the name of the floating IP or the subnet,
	// checked as the server checks it (CheckName): a form checks every
	// field as the user types.
	Name *string `json:"name,omitempty"`
}

// An InterfaceClaim attaches a VM interface in a subnet: an address of
// each family the subnet has, or of Family alone (IPV4, IPV6). VMUID and
// NIC name the interface, whose stable opaque address they choose.
type InterfaceClaim struct {
	Subnet string `json:"subnet"`
	Family string `json:"family,omitempty"`
	VMUID  string `json:"vmUid,omitempty"`
	NIC    int    `json:"nic,omitempty"`
}

// A FloatingIPClaim claims a floating IP in a zone.
type FloatingIPClaim struct {
	Zone string `json:"zone"`
}

// A ClaimPrediction answers a ClaimRequest: the address (of an interface
// or a floating IP) or the prefix and gateway (of a subnet) the claim will
// get, and why it gets none; the IPv6 ones beside. A subnet whose gateway
// is refused still shows its prefix.
type ClaimPrediction struct {
	Address     *netip.Addr   `json:"address,omitempty"`
	IPv6Address *netip.Addr   `json:"ipv6Address,omitempty"`
	CIDR        *netip.Prefix `json:"cidr,omitempty"`
	Gateway     *netip.Addr   `json:"gateway,omitempty"`
	IPv6CIDR    *netip.Prefix `json:"ipv6Cidr,omitempty"`
	IPv6Gateway *netip.Addr   `json:"ipv6Gateway,omitempty"`
	Errors      Errors        `json:"errors,omitempty"`
}

// Predict answers req.
func (c *Claims) Predict(req ClaimRequest) ClaimPrediction {
	var out ClaimPrediction
	var err error
	switch {
	case req.Interface != nil:
		err = c.predictInterface(*req.Interface, &out)
	case req.FloatingIP != nil:
		var a netip.Addr
		if a, err = c.FloatingIP(req.FloatingIP.Zone); err == nil {
			out.Address = &a
		}
	case req.Subnet != nil || req.IPv6Subnet != nil:
		var errs Errors
		if req.Subnet != nil {
			plan, err := c.Subnet(*req.Subnet)
			out.CIDR, out.Gateway = planned(plan)
			errs = asErrors(err)
		}
		if req.IPv6Subnet != nil {
			plan, err := c.SubnetV6(*req.IPv6Subnet)
			out.IPv6CIDR, out.IPv6Gateway = planned(plan)
			for _, e := range asErrors(err) {
				errs = append(errs, ipv6Field(e))
			}
		}
		if len(errs) > 0 {
			err = errs
		}
	default:
		err = Errors{{Field: "input", Message: "input names no claim: give interface, floatingIP or subnet"}}
	}
	if req.Name != nil {
		if e := CheckName("name", *req.Name); e != nil {
			out.Errors = append(out.Errors, e)
		}
	}
	out.Errors = append(out.Errors, asErrors(err)...)
	return out
}

// predictInterface fills out with the addresses an interface claim gets.
func (c *Claims) predictInterface(in InterfaceClaim, out *ClaimPrediction) error {
	if _, ok := c.subnets[in.Subnet]; !ok {
		_, err := c.Interface(in.Subnet)
		return err
	}
	_, dual := c.subnetsV6[in.Subnet]
	four, six := in.Family == "" || in.Family == "IPV4", in.Family == "IPV6" || in.Family == "" && dual
	if !four && !six {
		return Errors{{Field: "family", Message: fmt.Sprintf("family %s is not IPV4 or IPV6", quote(in.Family))}}
	}
	var errs Errors
	if four {
		a, err := c.Interface(in.Subnet)
		if err == nil {
			out.Address = &a
		}
		errs = asErrors(err)
	}
	if six {
		a, err := c.InterfaceV6(in.Subnet, in.VMUID, in.NIC)
		if err == nil {
			out.IPv6Address = &a
		}
		errs = append(errs, asErrors(err)...)
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// planned returns a plan's prefix and gateway, nil where it has none.
func planned(plan SubnetPlan) (*netip.Prefix, *netip.Addr) {
	var p *netip.Prefix
	var gw *netip.Addr
	if plan.Prefix.IsValid() {
		p = &plan.Prefix
	}
	if plan.Gateway.IsValid() {
		gw = &plan.Gateway
	}
	return p, gw
}

// ipv6Field names a mistake of a new subnet's IPv6 prefix by the fields
// of its IPv6 part: cidr is ipv6Cidr, prefixLength ipv6PrefixLength,
// gateway ipv6Gateway.
func ipv6Field(e *FieldError) *FieldError {
	name, ok := map[string]string{"cidr": "ipv6Cidr", "prefixLength": "ipv6PrefixLength", "gateway": "ipv6Gateway"}[e.Field]
	if !ok || !strings.HasPrefix(e.Message, e.Field) {
		return e
	}
	return &FieldError{Field: name, Message: name + strings.TrimPrefix(e.Message, e.Field)}
}

// asErrors returns err as field errors: an OverlapError is the cidr's, a
// NoFreePrefixError the prefixLength's.
func asErrors(err error) Errors {
	switch e := err.(type) {
	case nil:
		return nil
	case Errors:
		return e
	case *OverlapError:
		return Errors{{Field: "cidr", Message: e.Error()}}
	case *NoFreePrefixError:
		return Errors{{Field: "prefixLength", Message: e.Error()}}
	}
	return Errors{{Field: "input", Message: err.Error()}}
}

// ParseClaimsJSON reads a ClaimsSpec written as JSON, as ParseClaims.
// Input it cannot read is reported as an error of the field "claims".
func ParseClaimsJSON(in []byte) (*Claims, error) {
	if len(in) > MaxPreviewInput {
		return nil, Errors{{Field: "claims", Message: fmt.Sprintf("claims is %d bytes; at most %d are accepted", len(in), MaxPreviewInput)}}
	}
	var spec ClaimsSpec
	if err := decodeStrict(in, &spec); err != nil {
		return nil, Errors{{Field: "claims", Message: "claims is not a claims spec: " + err.Error()}}
	}
	return ParseClaims(spec)
}

// PredictJSON answers a ClaimRequest written as JSON with a
// ClaimPrediction written as JSON. Input it cannot read is reported as an
// error of the field "input".
func (c *Claims) PredictJSON(in []byte) []byte {
	var out ClaimPrediction
	var req ClaimRequest
	if err := decodeStrict(in, &req); err != nil {
		out.Errors = Errors{{Field: "input", Message: "input is not a claim request: " + err.Error()}}
	} else {
		out = c.Predict(req)
	}
	return marshal(out)
}

// PredictClaimJSON answers a ClaimRequest about a ClaimsSpec, both written
// as JSON: the browser's entry point (see wasm/), which parses the claims
// once per page and then answers each request as this does.
func PredictClaimJSON(claims, request []byte) []byte {
	c, err := ParseClaimsJSON(claims)
	if err != nil {
		return marshal(ClaimPrediction{Errors: err.(Errors)})
	}
	return c.PredictJSON(request)
}

// RangeList writes ranges as the compact list ParseRangeList reads:
// "10.0.0.2-10.0.0.9,10.0.0.12".
func RangeList(ranges []Range) string {
	var b strings.Builder
	for i, r := range ranges {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// decodeStrict decodes one JSON value into v, refusing unknown fields.
func decodeStrict(in []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Every output type marshals; this cannot happen.
		panic(err)
	}
	return b
}
