package web

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/views"
)

// claimData is what the VPC page's script predicts claims from: the
// prefixes and the taken addresses as compact ranges, never a list of
// every address.
type claimData struct {
	VPC      string                     `json:"vpc"`
	VPCName  string                     `json:"vpcName"`
	Subnets  map[string]claimSubnet     `json:"subnets"`
	Siblings []string                   `json:"siblings"`
	Zones    map[string][]claimZonePool `json:"zones"`
}

// Taken is a compact list of ranges ("a-b,c"), passed to the enumerator
// apart from its input so that it is parsed once, not on every keystroke.
type claimSubnet struct {
	CIDR    string `json:"cidr"`
	Gateway string `json:"gateway"`
	Taken   string `json:"taken"`
}

type claimZonePool struct {
	Pool    string   `json:"pool"`
	CIDR    string   `json:"cidr"`
	Gateway string   `json:"gateway,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	Taken   string   `json:"taken"`
}

// vpcShow answers GET /vpcs/<namespace>/<name>: the VPC's address map.
func (s *Server) vpcShow(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	namespace, name := splitPath(r.PathValue("path"))
	v, err := s.ipam.VPC(r.Context(), actor, namespace, name)
	if errors.Is(err, ipam.ErrNotFound) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.renderVPC(w, r, actor, v, nil, nil, http.StatusOK)
}

// vpcAction answers POST /vpcs/<namespace>/<name>: one of the page's
// claim forms, named by its action field; the page is drawn again with
// what the claim got.
func (s *Server) vpcAction(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	ctx := r.Context()
	namespace, name := splitPath(r.PathValue("path"))
	v, err := s.ipam.VPC(ctx, actor, namespace, name)
	if errors.Is(err, ipam.ErrNotFound) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if !readForm(w, r) {
		return
	}
	form := func(k string) string { return strings.TrimSpace(r.PostFormValue(k)) }
	res := &views.ClaimResult{Form: form("action"), Predicted: form("predicted")}
	values := map[string]string{}
	switch res.Form {
	case "attach-interface":
		values["subnet"], values["hostname"], values["nic"] = form("subnet"), form("hostname"), form("nic")
		nic, convErr := strconv.Atoi(cmp.Or(form("nic"), "0"))
		if convErr != nil {
			err = &ipam.InvalidError{Field: "nic", Message: "nic " + strconv.Quote(form("nic")) + " is not a number"}
			break
		}
		var a ipam.Allocation
		a, err = s.ipam.AttachInterface(ctx, actor, ipam.AttachInterfaceInput{
			Namespace: namespace, VPC: name, Subnet: form("subnet"),
			VM: ipam.VMRef{UID: vmUID(namespace, name, form("hostname")), Hostname: form("hostname")}, NIC: nic,
		})
		res.Message, res.Address = "Attached "+form("hostname")+"/"+strconv.Itoa(nic)+":", a.Address.String()
	case "claim-floating-ip":
		values["fip-name"], values["zone"] = form("name"), form("zone")
		var f ipam.FloatingIP
		f, err = s.ipam.ClaimFloatingIP(ctx, actor, ipam.ClaimFloatingIPInput{Namespace: namespace, Name: form("name"), Zone: form("zone")})
		res.Message, res.Address = "Claimed floating IP "+form("name")+":", f.Address.String()
	case "create-subnet":
		values["subnet-name"], values["cidr"], values["gateway"] = form("name"), form("cidr"), form("gateway")
		values["prefixLength"] = strings.TrimPrefix(form("prefixLength"), "/")
		var bits int
		if bits, err = prefixLength(form("prefixLength")); err != nil {
			break
		}
		var sub ipam.Subnet
		sub, err = s.ipam.CreateSubnet(ctx, actor, ipam.CreateSubnetInput{Namespace: namespace, VPC: name, Name: form("name"), CIDR: form("cidr"), PrefixLength: bits, Gateway: form("gateway")})
		res.Message, res.Address, res.Detail = "Created subnet "+form("name")+":", sub.CIDR.String(), "with gateway "+sub.Gateway.String()
	default:
		http.Error(w, "Unknown action "+strconv.Quote(res.Form)+".", http.StatusBadRequest)
		return
	}
	status := http.StatusOK
	if err != nil {
		switch refusal := ipam.Classify(err); refusal.Code {
		case ipam.CodeInternal, ipam.CodeUnavailable:
			s.serverError(w, r, err)
			return
		default:
			res.Error, res.Address, status = refusal.Message, "", http.StatusUnprocessableEntity
		}
	} else {
		values = nil
	}
	s.renderVPC(w, r, actor, v, res, values, status)
}

// prefixLength reads the create-subnet form's size: empty (a CIDR is
// given instead), or a prefix length such as 24 or /24.
func prefixLength(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	bits, err := strconv.Atoi(strings.TrimPrefix(s, "/"))
	if err != nil {
		return 0, &ipam.InvalidError{Field: "prefixLength", Message: "prefixLength " + strconv.Quote(s) + " is not a prefix length such as 24"}
	}
	return bits, nil
}

// vmUID names a VM the console attaches: the console knows VMs by their
// hostname within a VPC.
func vmUID(namespace, vpc, hostname string) string {
	return "console:" + namespace + "/" + vpc + "/" + hostname
}

// renderVPC draws the VPC page.
func (s *Server) renderVPC(w http.ResponseWriter, r *http.Request, actor auth.Actor, v ipam.VPC, res *views.ClaimResult, values map[string]string, status int) {
	ctx := r.Context()
	view := views.VPCView{VPC: v, Href: vpcHref(v), Result: res, Values: values}
	pool, err := s.ipam.VPCPool(ctx, actor, v)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	view.PoolHref = poolHref(pool)
	if view.Usage, err = s.ipam.PoolUsage(ctx, actor, pool); err != nil {
		s.serverError(w, r, err)
		return
	}
	if uplink, route, ok, err := s.ipam.Router(ctx, actor, v); err != nil {
		s.serverError(w, r, err)
		return
	} else if ok {
		view.Router, view.RouterPool = uplink.Address.String(), uplink.Pool
		if route.IsValid() {
			view.DefaultRoute = route.String()
		} else {
			view.NoDefaultRoute = "no default route: pool " + uplink.Pool + " has no gateway"
		}
	}
	data := claimData{VPC: v.CIDR.String(), VPCName: v.Name, Subnets: map[string]claimSubnet{}, Siblings: []string{}, Zones: map[string][]claimZonePool{}}
	subnets, err := s.ipam.Subnets(ctx, actor, v)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	for _, sub := range subnets {
		sv := views.SubnetView{Subnet: sub}
		if sv.Usage, err = s.ipam.SubnetUsage(ctx, actor, sub); err != nil {
			s.serverError(w, r, err)
			return
		}
		if sv.Map, err = s.ipam.SubnetMap(ctx, actor, sub); err != nil {
			s.serverError(w, r, err)
			return
		}
		taken, err := s.takenList(r, actor, pool, sub.CIDR)
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		data.Subnets[sub.Name] = claimSubnet{CIDR: sub.CIDR.String(), Gateway: sub.Gateway.String(), Taken: taken}
		data.Siblings = append(data.Siblings, sub.CIDR.String())
		view.Subnets = append(view.Subnets, sv)
	}
	if view.FloatingIPs, err = s.ipam.FloatingIPs(ctx, actor, v.Namespace); err != nil {
		s.serverError(w, r, err)
		return
	}
	publics, err := s.ipam.Pools(ctx, actor, ipam.Public, "")
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	for _, p := range publics {
		if p.Zone == "" {
			continue
		}
		taken, err := s.takenList(r, actor, p, netip.Prefix{})
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		zp := claimZonePool{Pool: p.Name, CIDR: p.CIDR.String(), Exclude: p.Exclude, Taken: taken}
		if p.Gateway.IsValid() {
			zp.Gateway = p.Gateway.String()
		}
		data.Zones[p.Zone] = append(data.Zones[p.Zone], zp)
		if !slices.Contains(view.Zones, p.Zone) {
			view.Zones = append(view.Zones, p.Zone)
		}
	}
	slices.Sort(view.Zones)
	b, err := json.Marshal(data)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	view.Data = string(b)
	s.render(w, r, status, views.VPCPage(s.shell(r, v.Name), view))
}

// takenList returns the taken ranges of a pool in scope as a compact list.
func (s *Server) takenList(r *http.Request, actor auth.Actor, p ipam.Pool, scope netip.Prefix) (string, error) {
	ranges, err := s.ipam.TakenRanges(r.Context(), actor, p, scope)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, rg := range ranges {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(rg.String())
	}
	return b.String(), nil
}
