package ipam

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/refusal"
)

var globex = auth.Actor{Name: "globex", Role: auth.Tenant, Namespaces: []string{"globex/*"}}

// setupOverview makes public pools in zone-a (with a gateway, two pools)
// and zone-n (without), and VPCs acme/prod main (zone-a, subnets web with
// three VMs and db), dark (zone-n), island (no zone) and globex/prod
// other (zone-a), and floating IP www of acme/prod.
func setupOverview(t *testing.T, svc *Service) {
	t.Helper()
	ctx := context.Background()
	for _, in := range []CreatePublicPoolInput{
		{Name: "public-a1", CIDR: "203.0.113.0/29", Gateway: "203.0.113.1", Zone: "zone-a"},
		{Name: "public-a2", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1", Zone: "zone-a"},
		{Name: "public-n", CIDR: "192.0.2.0/24", Zone: "zone-n"},
		{Name: "public-unzoned", CIDR: "100.64.0.0/24"},
	} {
		if _, err := svc.CreatePublicPool(ctx, operator, in); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range []CreateVPCInput{
		{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"},
		{Namespace: "acme/prod", Name: "dark", CIDR: "10.50.0.0/16", Zone: "zone-n"},
		{Namespace: "acme/prod", Name: "island", CIDR: "10.60.0.0/24"},
		{Namespace: "globex/prod", Name: "other", CIDR: "10.42.0.0/16", Zone: "zone-a"},
	} {
		if _, err := svc.CreateVPC(ctx, operator, in); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range []CreateSubnetInput{
		{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"},
		{Namespace: "acme/prod", VPC: "main", Name: "db", PrefixLength: 28},
	} {
		if _, err := svc.CreateSubnet(ctx, acme, in); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if _, err := attachVM(ctx, svc, i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "www", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
}

func TestVPCSummaries(t *testing.T) {
	svc, _, _ := newService(t)
	setupOverview(t, svc)
	ctx := context.Background()
	sums, err := svc.VPCSummaries(ctx, acme, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sums {
		var subnets []string
		for _, sub := range s.Subnets {
			subnets = append(subnets, sub.Name+" "+sub.CIDR.String())
		}
		got = append(got, fmt.Sprintf("%s/%s %d/%d router %v %s %v %q subnets %v", s.VPC.Namespace, s.VPC.Name, s.Usage.Used, s.Usage.Size,
			s.Router.Uplink, s.Router.Pool, s.Router.DefaultRoute, s.Router.NoDefaultRoute(), subnets))
	}
	want := []string{
		`acme/prod/dark 0/65534 router 192.0.2.1 public-n invalid IP "no default route: pool public-n has no gateway" subnets []`,
		`acme/prod/island 0/254 router invalid IP  invalid IP "" subnets []`,
		`acme/prod/main 3/65534 router 203.0.113.2 public-a1 203.0.113.1 "" subnets [db 10.42.0.0/28 web 10.42.1.0/24]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("VPCSummaries as acme:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The summaries say what the VPC's own methods say.
	for _, s := range sums {
		uplink, route, ok, err := svc.Router(ctx, acme, s.VPC)
		if err != nil || ok != s.Router.Uplink.IsValid() || ok && (uplink.Address != s.Router.Uplink || uplink.Pool != s.Router.Pool || route != s.Router.DefaultRoute) {
			t.Errorf("Router(%s) = %v %v %v %v, the summary says %+v", s.VPC.Name, uplink.Address, route, ok, err, s.Router)
		}
		pool, err := svc.VPCPool(ctx, acme, s.VPC)
		if err != nil {
			t.Fatal(err)
		}
		if u, err := svc.PoolUsage(ctx, acme, pool); err != nil || u != s.Usage {
			t.Errorf("PoolUsage(%s) = %+v %v, the summary says %+v", pool.Name, u, err, s.Usage)
		}
	}

	for _, tt := range []struct {
		actor     auth.Actor
		namespace string
		want      string
	}{
		{operator, "", "acme/prod/dark acme/prod/island acme/prod/main globex/prod/other"},
		{operator, "globex/prod", "globex/prod/other"},
		{acme, "globex/prod", ""},
		{globex, "", "globex/prod/other"},
		{auth.Actor{Name: "nobody", Role: auth.Tenant}, "", ""},
	} {
		sums, err := svc.VPCSummaries(ctx, tt.actor, tt.namespace)
		var names []string
		for _, s := range sums {
			names = append(names, s.VPC.Namespace+"/"+s.VPC.Name)
		}
		if err != nil || strings.Join(names, " ") != tt.want || sums == nil {
			t.Errorf("VPCSummaries as %s in %q = %v %v, want %q", tt.actor.Name, tt.namespace, names, err, tt.want)
		}
	}
}

// The VPC list reads its VPCs in a constant number of statements, however
// many there are.
func TestVPCSummariesStatements(t *testing.T) {
	dbURL := pgtest.NewURL(t)
	proxy, through := pgtest.NewProxy(t, dbURL)
	svc, _ := openServiceVia(t, through, dbURL)
	setupOverview(t, svc)
	ctx := context.Background()
	count := func() (int, int64) {
		t.Helper()
		before := proxy.Statements()
		sums, err := svc.VPCSummaries(ctx, operator, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(sums), proxy.Statements() - before
	}
	few, fewStatements := count()
	for i := range 12 {
		if _, err := svc.CreateVPC(ctx, operator, CreateVPCInput{Namespace: "acme/more", Name: fmt.Sprint("v", i), CIDR: "10.0.0.0/24", Zone: "zone-a"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.CreateSubnet(ctx, operator, CreateSubnetInput{Namespace: "acme/more", VPC: fmt.Sprint("v", i), Name: "s", PrefixLength: 26}); err != nil {
			t.Fatal(err)
		}
	}
	many, manyStatements := count()
	if few != 4 || many != 16 || fewStatements != 2 || manyStatements != 2 {
		t.Errorf("VPCSummaries read %d VPCs in %d statements and %d in %d; want 4 and 16, each in 2", few, fewStatements, many, manyStatements)
	}
}

// The overview of a VPC shows what its page needs, and the claims it
// carries predict what the service then gives.
func TestVPCOverview(t *testing.T) {
	svc, _, _ := newService(t)
	setupOverview(t, svc)
	ctx := context.Background()
	o, err := svc.VPCOverview(ctx, acme, "acme/prod", "main")
	if err != nil {
		t.Fatal(err)
	}
	var subnets []string
	for _, s := range o.Subnets {
		subnets = append(subnets, fmt.Sprintf("%s %d/%d %d cells", s.Subnet.Name, s.Usage.Used, s.Usage.Size, len(s.Map.Cells)))
	}
	var fips []string
	for _, f := range o.FloatingIPs {
		fips = append(fips, f.Name+" "+f.Address.String())
	}
	got := fmt.Sprintf("%s %s %d/%d router %v default %v; %v; %v; zones %v", o.VPC.Name, o.Pool.Name, o.Usage.Used, o.Usage.Size,
		o.Router.Uplink, o.Router.DefaultRoute, subnets, fips, o.Zones)
	if want := "main vpc-main 3/65534 router 203.0.113.2 default 203.0.113.1; [db 0/13 16 cells web 3/253 256 cells]; [www 203.0.113.4]; zones [zone-a zone-n]"; got != want {
		t.Errorf("VPCOverview(main) = %s\nwant %s", got, want)
	}

	claims, err := candidates.ParseClaims(o.Claims)
	if err != nil {
		t.Fatalf("the overview's claims do not parse: %v", err)
	}
	predicted, err := claims.Interface("web")
	if err != nil {
		t.Fatal(err)
	}
	a, err := svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ConsoleVM("acme/prod", "main", "new")})
	if err != nil || a.Address != predicted {
		t.Errorf("AttachInterface gave %v (%v), the overview predicted %v", a.Address, err, predicted)
	}
	predicted, err = claims.FloatingIP("zone-a")
	if err != nil {
		t.Fatal(err)
	}
	f, err := svc.ClaimFloatingIP(ctx, acme, ClaimFloatingIPInput{Namespace: "acme/prod", Name: "api", Zone: "zone-a"})
	if err != nil || f.Address != predicted {
		t.Errorf("ClaimFloatingIP gave %v (%v), the overview predicted %v", f.Address, err, predicted)
	}
	plan, err := claims.Subnet(candidates.SubnetSpec{PrefixLength: 24})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "cache", PrefixLength: 24})
	if err != nil || sub.CIDR != plan.Prefix || sub.Gateway != plan.Gateway {
		t.Errorf("CreateSubnet gave %v %v (%v), the overview predicted %v %v", sub.CIDR, sub.Gateway, err, plan.Prefix, plan.Gateway)
	}

	// What the prediction refuses, the service refuses in the same words.
	for _, in := range []CreateSubnetInput{
		{Name: "x", CIDR: "10.42.1.128/25"},
		{Name: "x", CIDR: "10.43.0.0/24"},
		{Name: "x", PrefixLength: 16},
		{Name: "x", PrefixLength: 8},
		{Name: "x", CIDR: "10.42.9.0/24", Gateway: "10.42.9.255"},
		{Name: "x", CIDR: "10.42.9.0/24", PrefixLength: 24},
	} {
		_, predicted := claims.Subnet(candidates.SubnetSpec{CIDR: in.CIDR, PrefixLength: in.PrefixLength, Gateway: in.Gateway})
		in.Namespace, in.VPC = "acme/prod", "main"
		_, err := svc.CreateSubnet(ctx, acme, in)
		if predicted == nil || err == nil || refusal.Classify(err).Message != predicted.Error() {
			t.Errorf("CreateSubnet(%+v) = %v, the prediction says %v", in, err, predicted)
		}
	}

	for _, tt := range []struct {
		actor       auth.Actor
		ns, name    string
		wantMissing bool
	}{
		{operator, "acme/prod", "main", false},
		{globex, "acme/prod", "main", true},
		{acme, "acme/prod", "ghost", true},
		{acme, "acme/prod\x00", "main", true},
	} {
		_, err := svc.VPCOverview(ctx, tt.actor, tt.ns, tt.name)
		if errors.Is(err, refusal.ErrNotFound) != tt.wantMissing || !tt.wantMissing && err != nil {
			t.Errorf("VPCOverview(%q, %q) as %s = %v, want not found %v", tt.ns, tt.name, tt.actor.Name, err, tt.wantMissing)
		}
	}
	island, err := svc.VPCOverview(ctx, acme, "acme/prod", "island")
	if err != nil || island.Router.Uplink.IsValid() || len(island.Subnets) != 0 || island.Subnets == nil {
		t.Errorf("VPCOverview(island) = %+v, %v; want no router and no subnet", island, err)
	}
}

func TestPoolOverview(t *testing.T) {
	svc, _, _ := newService(t)
	setupOverview(t, svc)
	ctx := context.Background()
	names := func(sums []PoolSummary) string {
		var out []string
		for _, s := range sums {
			out = append(out, fmt.Sprintf("%s %d", s.Pool.Name, s.Usage.Used))
		}
		return strings.Join(out, ", ")
	}
	for _, tt := range []struct {
		actor auth.Actor
		want  string
	}{
		{operator, "public-a1 3, public-a2 0, public-n 1, public-unzoned 0, vpc-dark 0, vpc-island 0, vpc-main 3, vpc-other 0"},
		{acme, "vpc-dark 0, vpc-island 0, vpc-main 3"},
		{globex, "vpc-other 0"},
	} {
		sums, err := svc.PoolSummaries(ctx, tt.actor)
		if err != nil || names(sums) != tt.want {
			t.Errorf("PoolSummaries as %s = %s (%v), want %s", tt.actor.Name, names(sums), err, tt.want)
		}
	}

	for _, tt := range []struct {
		actor       auth.Actor
		ns, name    string
		block, want string // block, map, VPC and subnets; or the error
	}{
		{acme, "acme/prod", "vpc-main", "", "whole pool, 256 blocks, VPC acme/prod/main: db 10.42.0.0/28 0/13, web 10.42.1.0/24 3/253"},
		{acme, "acme/prod", "vpc-main", "10.42.1.0/24", "10.42.1.0/24, 256 cells, VPC acme/prod/main: db 10.42.0.0/28 0/13, web 10.42.1.0/24 3/253"},
		{acme, "acme/prod", "vpc-main", "10.42.1.7/24", "10.42.1.0/24, 256 cells, VPC acme/prod/main: db 10.42.0.0/28 0/13, web 10.42.1.0/24 3/253"},
		{acme, "acme/prod", "vpc-main", "10.42.1.0/25", "whole pool, 256 blocks, VPC acme/prod/main: db 10.42.0.0/28 0/13, web 10.42.1.0/24 3/253"},
		{acme, "acme/prod", "vpc-main", "10.43.1.0/24", "whole pool, 256 blocks, VPC acme/prod/main: db 10.42.0.0/28 0/13, web 10.42.1.0/24 3/253"},
		{acme, "acme/prod", "vpc-island", "10.60.0.0/24", "whole pool, 256 cells, VPC acme/prod/island:"},
		{operator, "", "public-a1", "", "whole pool, 8 cells, no VPC:"},
		{acme, "", "public-a1", "", "pool public-a1 not found"},
		{globex, "acme/prod", "vpc-main", "", "pool acme/prod/vpc-main not found"},
	} {
		o, err := svc.PoolOverview(ctx, tt.actor, tt.ns, tt.name, tt.block)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			block := "whole pool"
			if o.Block.IsValid() {
				block = o.Block.String()
			}
			drawn := fmt.Sprintf("%d blocks", len(o.Map.Blocks))
			if o.Map.Cells != nil {
				drawn = fmt.Sprintf("%d cells", len(o.Map.Cells))
			}
			vpc := "no VPC"
			if o.VPC.Name != "" {
				vpc = "VPC " + o.VPC.Namespace + "/" + o.VPC.Name
			}
			var subnets []string
			for _, sub := range o.Subnets {
				subnets = append(subnets, fmt.Sprintf("%s %s %d/%d", sub.Subnet.Name, sub.Subnet.CIDR, sub.Usage.Used, sub.Usage.Size))
			}
			got = strings.TrimSpace(fmt.Sprintf("%s, %s, %s: %s", block, drawn, vpc, strings.Join(subnets, ", ")))
		}
		if got != tt.want {
			t.Errorf("PoolOverview(%s/%s, %q) as %s = %s, want %s", tt.ns, tt.name, tt.block, tt.actor.Name, got, tt.want)
		}
	}
}

func TestConsoleForms(t *testing.T) {
	if vm := ConsoleVM("acme/prod", "main", "web-01"); vm.UID != "console:acme/prod/main/web-01" || vm.Hostname != "web-01" {
		t.Errorf("ConsoleVM = %+v", vm)
	}
	for in, want := range map[string]string{"": "0", "3": "3", "one": `nic "one" is not a number`, "-1": "-1"} {
		n, err := ParseNIC(in)
		got := fmt.Sprint(n)
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("ParseNIC(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"": "0", "24": "24", "/24": "24", "big": `prefixLength "big" is not a prefix length such as 24`} {
		n, err := ParsePrefixLength(in)
		got := fmt.Sprint(n)
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("ParsePrefixLength(%q) = %s, want %s", in, got, want)
		}
	}
}
