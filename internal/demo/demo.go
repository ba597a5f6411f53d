// Package demo loads a small example into an empty installation, so that a
// newcomer running `make run` sees a living console: two public pools in
// two zones, tenants acme and globex with VPCs, subnets, VMs, nodes and
// floating IPs; dual-stack VPCs with public IPv6 pools (dualstack.go);
// with a made-up month of usage history (history.go); and
// the example of docs/numbers.md (numbers.go): sites, VLANs
// numbered per site from a scoped pool, and a branch with pending changes.
package demo

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
)

// A Login is a demo user and its password, printed once when loaded.
type Login struct {
	User, Role, Namespaces, Password string
}

// Tenants are the demo's users, without their passwords: what ipam serve
// --demo names at a later start, when the passwords are not known.
var Tenants = []Login{
	{User: "acme", Role: string(auth.Tenant), Namespaces: "acme/*"},
	{User: "globex", Role: string(auth.Tenant), Namespaces: "globex/*"},
}

// Load loads the example unless it was loaded before (in this database,
// by any process): the IP part and the number part each once, so that a
// database loaded before number pools existed gets the number part.
// loaded is false when there was nothing to do.
func Load(ctx context.Context, svc *ipam.Service, users *auth.Service, nums *numbers.Service) (logins []Login, loaded bool, err error) {
	first, err := svc.SetOnce(ctx, auth.System, "demo", map[string]bool{"loaded": true})
	if err != nil {
		return nil, false, fmt.Errorf("demo: unable to record the demo: %w", err)
	}
	if first {
		if logins, err = load(ctx, svc, users); err != nil {
			return nil, true, fmt.Errorf("demo: loading the example failed halfway: %w", err)
		}
	}
	firstIPv6, err := svc.SetOnce(ctx, auth.System, "demo-ipv6", map[string]bool{"loaded": true})
	if err != nil {
		return logins, first, fmt.Errorf("demo: unable to record the demo: %w", err)
	}
	if firstIPv6 {
		if err := loadDualStack(ctx, svc); err != nil {
			return logins, true, fmt.Errorf("demo: loading the dual-stack example failed halfway: %w", err)
		}
	}
	firstHistory, err := svc.SetOnce(ctx, auth.System, "demo-history", map[string]bool{"loaded": true})
	if err != nil {
		return logins, first, fmt.Errorf("demo: unable to record the demo: %w", err)
	}
	// A demo whose history was loaded before its dual-stack part gets the
	// history of that part alone.
	var only func(ipam.ObjectUsage) bool
	if !firstHistory && firstIPv6 {
		firstHistory, only = true, dualStackSpace
	}
	if firstHistory {
		if err := loadHistory(ctx, svc, time.Now(), only); err != nil {
			return logins, true, fmt.Errorf("demo: loading the usage history's example failed halfway: %w", err)
		}
	}
	firstNumbers, err := svc.SetOnce(ctx, auth.System, "demo-numbers", map[string]bool{"loaded": true})
	if err != nil {
		return logins, first, fmt.Errorf("demo: unable to record the demo: %w", err)
	}
	if firstNumbers {
		if err := loadNumbers(ctx, nums); err != nil {
			return logins, true, fmt.Errorf("demo: loading the number pools' example failed halfway: %w", err)
		}
	}
	return logins, first || firstIPv6 || firstHistory || firstNumbers, nil
}

func load(ctx context.Context, svc *ipam.Service, users *auth.Service) ([]Login, error) {
	op := auth.System
	for _, p := range []ipam.CreatePublicPoolInput{
		{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Exclude: []string{"203.0.113.2", "203.0.113.3"}, Zone: "zone-a"},
		{Name: "public-zone-b", CIDR: "198.51.100.0/24", Gateway: "198.51.100.1", Exclude: []string{"198.51.100.250-198.51.100.254"}, Zone: "zone-b"},
	} {
		if _, err := svc.CreatePublicPool(ctx, op, p); err != nil {
			return nil, err
		}
	}
	var logins []Login
	for _, l := range Tenants {
		l.Password = rand.Text()[:16]
		if err := users.AddUser(ctx, op, l.User, auth.Role(l.Role), []string{l.Namespaces}, l.Password); err != nil {
			return nil, err
		}
		logins = append(logins, l)
	}
	tenants := []struct {
		namespace, vpc, cidr, zone string
		subnets                    []struct {
			name, cidr string
			vms, nodes int
		}
		fips []string
	}{
		{"acme/prod", "main", "10.42.0.0/16", "zone-a", []struct {
			name, cidr string
			vms, nodes int
		}{{"web", "10.42.1.0/24", 12, 2}, {"db", "10.42.2.0/26", 4, 1}, {"gpu", "10.42.3.0/28", 8, 1}, {"batch", "10.42.16.0/20", 9, 3}}, []string{"www", "api"}},
		{"globex/dev", "lab", "172.20.0.0/20", "zone-b", []struct {
			name, cidr string
			vms, nodes int
		}{{"apps", "172.20.0.0/24", 8, 2}, {"ci", "172.20.4.0/27", 5, 1}}, []string{"gateway"}},
	}
	for _, t := range tenants {
		if _, err := svc.CreateVPC(ctx, op, ipam.CreateVPCInput{Namespace: t.namespace, Name: t.vpc, CIDR: t.cidr, Zone: t.zone}); err != nil {
			return nil, err
		}
		for _, s := range t.subnets {
			if _, err := svc.CreateSubnet(ctx, op, ipam.CreateSubnetInput{Namespace: t.namespace, VPC: t.vpc, Name: s.name, CIDR: s.cidr}); err != nil {
				return nil, err
			}
			for i := range s.vms {
				host := fmt.Sprintf("%s-%02d", s.name, i+1)
				for nic := range 1 + i%3/2 {
					if _, err := svc.AttachInterface(ctx, op, ipam.AttachInterfaceInput{
						Namespace: t.namespace, VPC: t.vpc, Subnet: s.name, VM: ipam.VMRef{UID: "demo-vm-" + t.vpc + "-" + host, Hostname: host}, NIC: nic,
					}); err != nil {
						return nil, err
					}
				}
			}
			for i := range s.nodes {
				node := fmt.Sprintf("node-%02d", i+1)
				if _, err := svc.AttachNode(ctx, op, ipam.AttachNodeInput{
					Namespace: t.namespace, VPC: t.vpc, Subnet: s.name, Node: ipam.NodeRef{UID: "demo-node-" + t.vpc + "-" + node, Name: node},
				}); err != nil {
					return nil, err
				}
			}
		}
		for _, f := range t.fips {
			if _, err := svc.ClaimFloatingIP(ctx, op, ipam.ClaimFloatingIPInput{Namespace: t.namespace, Name: f, Zone: t.zone}); err != nil {
				return nil, err
			}
		}
	}
	return logins, nil
}
