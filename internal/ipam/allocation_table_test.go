package ipam

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/auth"
)

// tableText writes a table as one line: its page, counts and rows, each
// row its addresses, its subnet and the VPC that shows its owner.
func tableText(t AllocationTable, err error) string {
	if err != nil {
		return err.Error()
	}
	rows := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		if r.Allocation == nil {
			rows[i] = fmt.Sprintf("%s-%s free %s", r.From, r.To, r.Free())
		} else {
			rows[i] = r.From.String() + " " + r.Allocation.Owner.Name
			if r.VPC.Name != "" {
				rows[i] += " on " + r.VPC.Namespace + "/" + r.VPC.Name
			}
		}
		if r.Subnet != "" {
			rows[i] += " in " + r.Subnet
		}
	}
	return fmt.Sprintf("page %d of %d, %d allocations, %s free: %s", t.Page, t.Pages, t.Allocations, t.Free, strings.Join(rows, "; "))
}

func TestAllocationTable(t *testing.T) {
	svc, _, url := newService(t)
	setupOverview(t, svc)
	ctx := context.Background()
	main := Pool{Namespace: "acme/prod", Name: "vpc-main"}
	const web = "10.42.1.2 vm-0/0 on acme/prod/main in web; 10.42.1.3 vm-1/0 on acme/prod/main in web; 10.42.1.4 vm-2/0 on acme/prod/main in web"
	for _, tt := range []struct {
		actor auth.Actor
		pool  Pool
		q     TableQuery
		want  string
	}{
		{acme, main, TableQuery{}, "page 1 of 1, 3 allocations, 263 free: 10.42.0.2-10.42.0.14 free 13 in db; " + web + "; 10.42.1.5-10.42.1.254 free 250 in web"},
		{acme, main, TableQuery{Page: 2, PerPage: 2}, "page 2 of 3, 3 allocations, 263 free: 10.42.1.3 vm-1/0 on acme/prod/main in web; 10.42.1.4 vm-2/0 on acme/prod/main in web"},
		{acme, main, TableQuery{Page: 9, PerPage: 2}, "page 3 of 3, 3 allocations, 263 free: 10.42.1.5-10.42.1.254 free 250 in web"},
		{acme, main, TableQuery{Page: -1, PerPage: 1}, "page 1 of 5, 3 allocations, 263 free: 10.42.0.2-10.42.0.14 free 13 in db"},
		{acme, main, TableQuery{Prefix: "10.42.1.0/29"}, "page 1 of 1, 3 allocations, 3 free: " + web + "; 10.42.1.5-10.42.1.7 free 3 in web"},
		{acme, main, TableQuery{Prefix: "10.42.1.9"}, "page 1 of 1, 0 allocations, 1 free: 10.42.1.9-10.42.1.9 free 1 in web"},
		{acme, main, TableQuery{Prefix: "10.42.2.0/24"}, "page 1 of 1, 0 allocations, 0 free: "},
		{acme, main, TableQuery{Prefix: "10.0.0.0/8", PerPage: 1}, "page 1 of 5, 3 allocations, 263 free: 10.42.0.2-10.42.0.14 free 13 in db"},
		{acme, main, TableQuery{Search: "vm-1"}, "page 1 of 1, 1 allocations, 0 free: 10.42.1.3 vm-1/0 on acme/prod/main in web"},
		{acme, main, TableQuery{Search: "vm-", Prefix: "10.42.1.3/32"}, "page 1 of 1, 1 allocations, 0 free: 10.42.1.3 vm-1/0 on acme/prod/main in web"},
		{acme, main, TableQuery{Search: "vm-", Page: 7, PerPage: 2}, "page 2 of 2, 3 allocations, 0 free: 10.42.1.4 vm-2/0 on acme/prod/main in web"},
		{acme, main, TableQuery{Search: "nobody"}, "page 1 of 1, 0 allocations, 0 free: "},
		{acme, main, TableQuery{Prefix: "10.42.3.0/33"}, `"10.42.3.0/33" is not a prefix: write one such as 10.42.3.0/28, or an address`},
		{acme, main, TableQuery{Prefix: "10.43.0.0/28"}, "10.43.0.0/28 is outside pool vpc-main (10.42.0.0/16): give a prefix inside it"},
		{acme, main, TableQuery{Prefix: "10.42.1.5/28"}, "10.42.1.5/28 has host bits set; did you mean 10.42.1.0/28?"},
		{acme, main, TableQuery{Prefix: "2001:db8::/32"}, "2001:db8::/32 is IPv6, and pool vpc-main (10.42.0.0/16) holds IPv4 addresses: give an IPv4 prefix or address"},
		{acme, main, TableQuery{PerPage: 1001}, "perPage 1001 is out of range: 1 to 1000"},
		{acme, main, TableQuery{Search: "a\x00"}, `search "a\x00" holds a NUL or is not UTF-8`},
		// A router's uplink is shown on its VPC's page; a floating IP on
		// the first VPC of its namespace, which lists its floating IPs.
		{operator, Pool{Name: "public-a1"}, TableQuery{}, "page 1 of 1, 3 allocations, 2 free: 203.0.113.2 router on acme/prod/main; 203.0.113.3 router on globex/prod/other; 203.0.113.4 www on acme/prod/dark; 203.0.113.5-203.0.113.6 free 2"},
		{acme, Pool{Name: "public-a1"}, TableQuery{}, "pool public-a1 not found"},
		{globex, main, TableQuery{}, "pool acme/prod/vpc-main not found"},
	} {
		got := tableText(svc.PoolTable(ctx, tt.actor, tt.pool, tt.q))
		if got != tt.want {
			t.Errorf("PoolTable(%s, %+v) as %s =\n%s\nwant\n%s", tt.pool.Name, tt.q, tt.actor.Name, got, tt.want)
		}
	}

	webSubnet := Subnet{Namespace: "acme/prod", VPC: "main", Name: "web"}
	if got, want := tableText(svc.SubnetTable(ctx, acme, webSubnet, TableQuery{})), "page 1 of 1, 3 allocations, 250 free: "+web+"; 10.42.1.5-10.42.1.254 free 250 in web"; got != want {
		t.Errorf("SubnetTable(web) =\n%s\nwant\n%s", got, want)
	}
	if got, want := tableText(svc.SubnetTable(ctx, acme, webSubnet, TableQuery{Prefix: "10.42.0.0/24"})), "10.42.0.0/24 is outside subnet web (10.42.1.0/24): give a prefix inside it"; got != want {
		t.Errorf("SubnetTable(web) filtered by another subnet's prefix = %s, want %s", got, want)
	}
	if got := tableText(svc.SubnetTable(ctx, globex, webSubnet, TableQuery{})); got != "subnet acme/prod/main/web not found" {
		t.Errorf("another tenant's SubnetTable(web) = %s", got)
	}

	// Another process claims 10.42.1.5: this process's view has not met
	// the claim (a claim elsewhere is met when this process claims or
	// reads the view afresh), yet the page shows it, read from the
	// database, and the run of free addresses after it.
	other, _ := openService(t, url)
	if _, err := other.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: "uid-9", Hostname: "vm-9"}}); err != nil {
		t.Fatal(err)
	}
	got := tableText(svc.SubnetTable(ctx, acme, webSubnet, TableQuery{}))
	if want := "page 1 of 1, 3 allocations, 250 free: " + web + "; 10.42.1.5 vm-9/0 on acme/prod/main in web; 10.42.1.6-10.42.1.254 free 249 in web"; got != want {
		t.Errorf("SubnetTable(web) after another process's claim =\n%s\nwant\n%s", got, want)
	}
}

// TestAllocationTableIPv6: an IPv6 pool's table is filtered by an IPv6
// prefix or address in any spelling, kept as RFC 5952 writes it; an IPv4
// one, host bits and what is no prefix are refused in the IPv6 words.
func TestAllocationTableIPv6(t *testing.T) {
	svc, _, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "edge", CIDR: "10.50.0.0/16", IPv6CIDR: "fd12:3456:789a::/48"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "edge", Name: "web", CIDR: "10.50.1.0/24", IPv6CIDR: "fd12:3456:789a:1::/64"}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := svc.AttachInterface(ctx, acme, AttachInterfaceInput{Namespace: "acme/prod", VPC: "edge", Subnet: "web", Family: IPv6,
			VM: VMRef{UID: fmt.Sprint("uid-", i), Hostname: fmt.Sprint("vm-", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	edge := Pool{Namespace: "acme/prod", Name: "vpc-edge-v6"}
	const held = "fd12:3456:789a:1::2 vm-0/0 on acme/prod/edge in web; fd12:3456:789a:1::3 vm-1/0 on acme/prod/edge in web"
	for _, tt := range []struct {
		prefix string
		want   string
	}{
		{"", "page 1 of 1, 2 allocations, 18446744073709551612 free: " + held + "; fd12:3456:789a:1::4-fd12:3456:789a:1:ffff:ffff:ffff:ffff free 18446744073709551612 in web"},
		{"fd12:3456:789a:1::/125", "page 1 of 1, 2 allocations, 4 free: " + held + "; fd12:3456:789a:1::4-fd12:3456:789a:1::7 free 4 in web"},
		{"FD12:3456:789A:0001:0:0::/125", "page 1 of 1, 2 allocations, 4 free: " + held + "; fd12:3456:789a:1::4-fd12:3456:789a:1::7 free 4 in web"},
		{"fd12:3456:789a:1:0:0:0:3", "page 1 of 1, 1 allocations, 0 free: fd12:3456:789a:1::3 vm-1/0 on acme/prod/edge in web"},
		{"fd12:3456:789a:1::9/128", "page 1 of 1, 0 allocations, 1 free: fd12:3456:789a:1::9-fd12:3456:789a:1::9 free 1 in web"},
		{"fd12:3456:789a:2::/125", "page 1 of 1, 0 allocations, 0 free: "},
		{"fd12:3456:789a:1::5/125", "fd12:3456:789a:1::5/125 has host bits set; did you mean fd12:3456:789a:1::/125?"},
		{"fd12:3456:789b::/64", "fd12:3456:789b::/64 is outside pool vpc-edge-v6 (fd12:3456:789a::/48): give a prefix inside it"},
		{"10.50.1.0/24", "10.50.1.0/24 is IPv4, and pool vpc-edge-v6 (fd12:3456:789a::/48) holds IPv6 addresses: give an IPv6 prefix or address"},
		{"fd12::1%eth0", `"fd12::1%eth0" is not a prefix: write one such as 2001:db8:0:1::/64, or an address`},
		{"fd12:3456:789a:1::/129", `"fd12:3456:789a:1::/129" is not a prefix: write one such as 2001:db8:0:1::/64, or an address`},
	} {
		got := tableText(svc.PoolTable(ctx, acme, edge, TableQuery{Prefix: tt.prefix}))
		if got != tt.want {
			t.Errorf("PoolTable(vpc-edge-v6, prefix %q) =\n%s\nwant\n%s", tt.prefix, got, tt.want)
		}
	}
	table, err := svc.PoolTable(ctx, acme, edge, TableQuery{Prefix: "FD12:3456:789A:1::/125"})
	if err != nil || table.Prefix.String() != "fd12:3456:789a:1::/125" {
		t.Errorf("the table's prefix = %s (%v), want fd12:3456:789a:1::/125", table.Prefix, err)
	}
}
