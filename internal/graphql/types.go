package graphql

import (
	"context"
	"net/netip"
	"sync"
	"time"

	gql "github.com/graphql-go/graphql"

	"pivirt.hu/ipam/internal/ipam"
)

// types are the object types of the schema, built once for each schema.
type types struct {
	poolKind     *gql.Enum
	usage        *gql.Object
	ownerRef     *gql.Object
	allocation   *gql.Object
	pageInfo     *gql.Object
	edge         *gql.Object
	connection   *gql.Object
	pool         *gql.Object
	subnet       *gql.Object
	vpc          *gql.Object
	floatingIP   *gql.Object
	allocArgs    gql.FieldConfigArgument
	nonNullStr   gql.Output
	nonNullInt   gql.Output
	nonNullFloat gql.Output
}

// field is a field of an object whose source is a T, read by get.
func field[T any](typ gql.Output, get func(T) any) *gql.Field {
	return &gql.Field{Type: typ, Resolve: func(p gql.ResolveParams) (any, error) {
		return get(p.Source.(T)), nil
	}}
}

// optional is s, or null when empty.
func optional(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// addr is a, or null when it is the zero Addr.
func addr(a netip.Addr) any {
	if !a.IsValid() {
		return nil
	}
	return a.String()
}

// timestamp is t in RFC 3339, or null when zero.
func timestamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func newTypes(svc *ipam.Service) *types {
	t := &types{
		nonNullStr:   gql.NewNonNull(gql.String),
		nonNullInt:   gql.NewNonNull(gql.Int),
		nonNullFloat: gql.NewNonNull(gql.Float),
	}
	t.poolKind = gql.NewEnum(gql.EnumConfig{
		Name:        "PoolKind",
		Description: "Who made a pool: operators (PUBLIC, cluster-scoped) or the VPC it belongs to (PRIVATE).",
		Values: gql.EnumValueConfigMap{
			"PUBLIC":  &gql.EnumValueConfig{Value: ipam.Public},
			"PRIVATE": &gql.EnumValueConfig{Value: ipam.Private},
		},
	})
	t.usage = gql.NewObject(gql.ObjectConfig{
		Name:        "Usage",
		Description: "How full a pool or a subnet is. size is the number of candidates; utilization is used in percent of size.",
		Fields: gql.Fields{
			"size":        field(t.nonNullInt, func(u ipam.Usage) any { return u.Size }),
			"used":        field(t.nonNullInt, func(u ipam.Usage) any { return u.Used }),
			"free":        field(t.nonNullInt, func(u ipam.Usage) any { return u.Free }),
			"utilization": field(t.nonNullFloat, func(u ipam.Usage) any { return u.Utilization() }),
		},
	})
	t.ownerRef = gql.NewObject(gql.ObjectConfig{
		Name:        "ObjectReference",
		Description: "What holds an address: kind VirtualMachine, FloatingIP, VPC or Node.",
		Fields: gql.Fields{
			"kind": field(t.nonNullStr, func(o ipam.Owner) any { return o.Kind }),
			"uid":  field(t.nonNullStr, func(o ipam.Owner) any { return o.UID }),
			"name": field(t.nonNullStr, func(o ipam.Owner) any { return o.Name }),
		},
	})
	t.allocation = gql.NewObject(gql.ObjectConfig{
		Name:        "IPAllocation",
		Description: "One address held by one owner, named <pool>-<a-b-c-d> in the pool's namespace (null for public pools).",
		Fields: gql.Fields{
			"name":      field(t.nonNullStr, func(a ipam.Allocation) any { return a.Name }),
			"namespace": field(gql.String, func(a ipam.Allocation) any { return optional(a.Namespace) }),
			"pool":      field(t.nonNullStr, func(a ipam.Allocation) any { return a.Pool }),
			"address":   field(t.nonNullStr, func(a ipam.Allocation) any { return a.Address.String() }),
			"owner":     field(gql.NewNonNull(t.ownerRef), func(a ipam.Allocation) any { return a.Owner }),
			"createdAt": field(gql.String, func(a ipam.Allocation) any { return timestamp(a.CreatedAt) }),
		},
	})
	t.pageInfo = gql.NewObject(gql.ObjectConfig{
		Name: "PageInfo",
		Fields: gql.Fields{
			"endCursor":   field(gql.String, func(p ipam.AllocationPage) any { return optional(p.EndCursor) }),
			"hasNextPage": field(gql.NewNonNull(gql.Boolean), func(p ipam.AllocationPage) any { return p.HasNext }),
		},
	})
	t.edge = gql.NewObject(gql.ObjectConfig{
		Name: "AllocationEdge",
		Fields: gql.Fields{
			"cursor": field(t.nonNullStr, func(a ipam.Allocation) any { return a.Address.String() }),
			"node":   field(gql.NewNonNull(t.allocation), func(a ipam.Allocation) any { return a }),
		},
	})
	t.connection = gql.NewObject(gql.ObjectConfig{
		Name:        "AllocationConnection",
		Description: "A page of allocations in address order. totalCount counts every allocation matching the search.",
		Fields: gql.Fields{
			"edges":      field(gql.NewNonNull(gql.NewList(gql.NewNonNull(t.edge))), func(p ipam.AllocationPage) any { return p.Allocations }),
			"nodes":      field(gql.NewNonNull(gql.NewList(gql.NewNonNull(t.allocation))), func(p ipam.AllocationPage) any { return p.Allocations }),
			"pageInfo":   field(gql.NewNonNull(t.pageInfo), func(p ipam.AllocationPage) any { return p }),
			"totalCount": field(t.nonNullInt, func(p ipam.AllocationPage) any { return p.Total }),
		},
	})
	t.allocArgs = gql.FieldConfigArgument{
		"first":  &gql.ArgumentConfig{Type: gql.Int, Description: "How many allocations, 1 to 1000; 50 when not given."},
		"after":  &gql.ArgumentConfig{Type: gql.String, Description: "The endCursor of the previous page."},
		"search": &gql.ArgumentConfig{Type: gql.String, Description: "Keeps the allocations whose address or owner contains it."},
	}
	t.pool = gql.NewObject(gql.ObjectConfig{
		Name:        "IPAMPool",
		Description: "A pool of addresses: public (cluster-scoped, namespace null) or a VPC's private pool vpc-<name>.",
		Fields: gql.Fields{
			"uid":       field(gql.NewNonNull(gql.ID), func(p ipam.Pool) any { return p.UID }),
			"name":      field(t.nonNullStr, func(p ipam.Pool) any { return p.Name }),
			"namespace": field(gql.String, func(p ipam.Pool) any { return optional(p.Namespace) }),
			"kind":      field(gql.NewNonNull(t.poolKind), func(p ipam.Pool) any { return p.Kind }),
			"cidr":      field(t.nonNullStr, func(p ipam.Pool) any { return p.CIDR.String() }),
			"gateway":   field(gql.String, func(p ipam.Pool) any { return addr(p.Gateway) }),
			"exclude":   field(gql.NewNonNull(gql.NewList(t.nonNullStr)), func(p ipam.Pool) any { return p.Exclude }),
			"zone":      field(gql.String, func(p ipam.Pool) any { return optional(p.Zone) }),
			"usage": {
				Type: gql.NewNonNull(t.usage),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					return svc.PoolUsage(ctx, st.actor, p.Source.(ipam.Pool))
				}),
			},
			"allocations": {
				Type: gql.NewNonNull(t.connection),
				Args: t.allocArgs,
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					page, err := pageArgs(p.Args)
					if err != nil {
						return nil, err
					}
					return svc.PoolAllocations(ctx, st.actor, p.Source.(ipam.Pool), page)
				}),
			},
		},
	})
	t.subnet = gql.NewObject(gql.ObjectConfig{
		Name:        "Subnet",
		Description: "A part of a VPC's prefix. Its gateway is reserved in every allocation of the subnet.",
		Fields: gql.Fields{
			"uid":     field(gql.NewNonNull(gql.ID), func(s ipam.Subnet) any { return s.UID }),
			"name":    field(t.nonNullStr, func(s ipam.Subnet) any { return s.Name }),
			"cidr":    field(t.nonNullStr, func(s ipam.Subnet) any { return s.CIDR.String() }),
			"gateway": field(t.nonNullStr, func(s ipam.Subnet) any { return s.Gateway.String() }),
			"usage": {
				Type: gql.NewNonNull(t.usage),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					return svc.SubnetUsage(ctx, st.actor, p.Source.(ipam.Subnet))
				}),
			},
			"allocations": {
				Type: gql.NewNonNull(t.connection),
				Args: t.allocArgs,
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					page, err := pageArgs(p.Args)
					if err != nil {
						return nil, err
					}
					return svc.SubnetAllocations(ctx, st.actor, p.Source.(ipam.Subnet), page)
				}),
			},
		},
	})
	routerOf := func(ctx context.Context, st *requestState, p gql.ResolveParams) (*router, error) {
		v := p.Source.(*vpcNode)
		v.once.Do(func() {
			v.router.uplink, v.router.defaultRoute, v.router.ok, v.router.err = svc.Router(ctx, st.actor, v.VPC)
		})
		return &v.router, v.router.err
	}
	t.vpc = gql.NewObject(gql.ObjectConfig{
		Name:        "VPC",
		Description: "A tenant's private network, with its pool vpc-<name> and, with a zone, a router uplink from the zone's public pools.",
		Fields: gql.Fields{
			"uid":       field(gql.NewNonNull(gql.ID), func(v *vpcNode) any { return v.UID }),
			"namespace": field(t.nonNullStr, func(v *vpcNode) any { return v.Namespace }),
			"name":      field(t.nonNullStr, func(v *vpcNode) any { return v.Name }),
			"cidr":      field(t.nonNullStr, func(v *vpcNode) any { return v.CIDR.String() }),
			"zone":      field(gql.String, func(v *vpcNode) any { return optional(v.Zone) }),
			"pool": {
				Type: gql.NewNonNull(t.pool),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					return svc.VPCPool(ctx, st.actor, p.Source.(*vpcNode).VPC)
				}),
			},
			"router": {
				Type: t.allocation,
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					r, err := routerOf(ctx, st, p)
					if err != nil || !r.ok {
						return nil, err
					}
					return r.uplink, nil
				}),
			},
			"defaultRoute": {
				Type: gql.String,
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					r, err := routerOf(ctx, st, p)
					if err != nil || !r.ok {
						return nil, err
					}
					return addr(r.defaultRoute), nil
				}),
			},
			"subnets": {
				Type: gql.NewNonNull(gql.NewList(gql.NewNonNull(t.subnet))),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					return svc.Subnets(ctx, st.actor, p.Source.(*vpcNode).VPC)
				}),
			},
		},
	})
	t.floatingIP = gql.NewObject(gql.ObjectConfig{
		Name:        "FloatingIP",
		Description: "A public address a tenant holds, from a public pool.",
		Fields: gql.Fields{
			"uid":       field(gql.NewNonNull(gql.ID), func(f ipam.FloatingIP) any { return f.UID }),
			"namespace": field(t.nonNullStr, func(f ipam.FloatingIP) any { return f.Namespace }),
			"name":      field(t.nonNullStr, func(f ipam.FloatingIP) any { return f.Name }),
			"address":   field(t.nonNullStr, func(f ipam.FloatingIP) any { return f.Address.String() }),
			"pool":      field(t.nonNullStr, func(f ipam.FloatingIP) any { return f.Pool }),
			"zone":      field(gql.String, func(f ipam.FloatingIP) any { return optional(f.Zone) }),
		},
	})
	return t
}

// A vpcNode is a VPC as a source of the VPC type: its router and default
// route are read once for both fields.
type vpcNode struct {
	ipam.VPC
	once   sync.Once
	router router
}

type router struct {
	uplink       ipam.Allocation
	defaultRoute netip.Addr
	ok           bool
	err          error
}

func newVPCNode(v ipam.VPC) *vpcNode { return &vpcNode{VPC: v} }

func vpcNodes(vs []ipam.VPC) []*vpcNode {
	out := make([]*vpcNode, len(vs))
	for i, v := range vs {
		out[i] = newVPCNode(v)
	}
	return out
}

// pageArgs reads the arguments of an allocations field. An explicit first
// of 0 is refused here: the domain reads 0 as "not given".
func pageArgs(args map[string]any) (ipam.Page, error) {
	page := ipam.Page{After: stringArg(args, "after"), Search: stringArg(args, "search")}
	if first, ok := args["first"].(int); ok {
		if first == 0 {
			return page, &codedError{code: codeInvalidArgument, message: "first 0 is out of range: 1 to 1000", field: "first"}
		}
		page.First = first
	}
	return page, nil
}
