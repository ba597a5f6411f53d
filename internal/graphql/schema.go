package graphql

import (
	"context"
	"errors"
	"net/netip"

	gql "github.com/graphql-go/graphql"

	"pivirt.hu/ipam/internal/ipam"
)

// resolverFn resolves a field for the request's actor; its errors are the
// domain's and are turned into coded errors by resolve.
type resolverFn func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error)

func resolve(fn resolverFn) gql.FieldResolveFn {
	return func(p gql.ResolveParams) (any, error) {
		st := stateOf(p.Context)
		v, err := fn(p.Context, st, p)
		if err != nil {
			return nil, st.domainError(p.Context, err)
		}
		return v, nil
	}
}

// newSchema builds the schema of SPEC §5 over svc.
func newSchema(svc *ipam.Service) (gql.Schema, error) {
	t := newTypes(svc)
	return gql.NewSchema(gql.SchemaConfig{
		Query:    queryType(svc, t),
		Mutation: mutationType(svc, t),
	})
}

func queryType(svc *ipam.Service, t *types) *gql.Object {
	str := &gql.ArgumentConfig{Type: gql.String}
	nonNullStr := &gql.ArgumentConfig{Type: gql.NewNonNull(gql.String)}
	return gql.NewObject(gql.ObjectConfig{
		Name: "Query",
		Fields: gql.Fields{
			"pools": {
				Type:        gql.NewNonNull(gql.NewList(gql.NewNonNull(t.pool))),
				Description: "The pools the actor may see, of kind and of namespace when given.",
				Args:        gql.FieldConfigArgument{"kind": {Type: t.poolKind}, "namespace": str},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					kind, _ := p.Args["kind"].(ipam.PoolKind)
					return svc.Pools(ctx, st.actor, kind, stringArg(p.Args, "namespace"))
				}),
			},
			"pool": {
				Type:        t.pool,
				Description: "The pool namespace/name (no namespace: a public pool); null when it does not exist or is not visible.",
				Args:        gql.FieldConfigArgument{"namespace": str, "name": nonNullStr},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					pool, err := svc.Pool(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "name"))
					if errors.Is(err, ipam.ErrNotFound) {
						return nil, nil
					}
					return pool, err
				}),
			},
			"vpcs": {
				Type:        gql.NewNonNull(gql.NewList(gql.NewNonNull(t.vpc))),
				Description: "The VPCs the actor may see, of namespace when given.",
				Args:        gql.FieldConfigArgument{"namespace": str},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					vs, err := svc.VPCs(ctx, st.actor, stringArg(p.Args, "namespace"))
					return vpcNodes(vs), err
				}),
			},
			"vpc": {
				Type:        t.vpc,
				Description: "The VPC namespace/name; null when it does not exist or is not visible.",
				Args:        gql.FieldConfigArgument{"namespace": nonNullStr, "name": nonNullStr},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					v, err := svc.VPC(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "name"))
					switch {
					case errors.Is(err, ipam.ErrNotFound):
						return nil, nil
					case err != nil:
						return nil, err
					}
					return newVPCNode(v), nil
				}),
			},
			"floatingIps": {
				Type:        gql.NewNonNull(gql.NewList(gql.NewNonNull(t.floatingIP))),
				Description: "The floating IPs the actor may see, of namespace when given.",
				Args:        gql.FieldConfigArgument{"namespace": str},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					return svc.FloatingIPs(ctx, st.actor, stringArg(p.Args, "namespace"))
				}),
			},
			"previewSubnet": {
				Type:        gql.NewNonNull(gql.NewList(t.nonNullStr)),
				Description: "The next count prefixes of length prefixLength that createSubnet would give in the VPC, lowest first; nothing is stored.",
				Args: gql.FieldConfigArgument{
					"namespace": nonNullStr, "vpc": nonNullStr, "prefixLength": {Type: gql.NewNonNull(gql.Int)},
					"count": {Type: gql.Int, DefaultValue: 1},
				},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					bits, _ := p.Args["prefixLength"].(int)
					count, _ := p.Args["count"].(int)
					ps, err := svc.PreviewSubnet(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "vpc"), bits, count)
					out := make([]string, len(ps))
					for i, p := range ps {
						out[i] = p.String()
					}
					return out, err
				}),
			},
			"previewAllocation": {
				Type:        gql.NewNonNull(gql.NewList(t.nonNullStr)),
				Description: "The next count addresses a claim in the pool would get, within a prefix and skipping reserved addresses; nothing is stored.",
				Args: gql.FieldConfigArgument{
					"namespace": str, "pool": nonNullStr, "within": str,
					"reserved": {Type: gql.NewList(t.nonNullStr)},
					"count":    {Type: gql.Int, DefaultValue: 1},
				},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					count, _ := p.Args["count"].(int)
					as, err := svc.Preview(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "pool"),
						stringArg(p.Args, "within"), stringsArg(p.Args, "reserved"), count)
					return addrStrings(as), err
				}),
			},
		},
	})
}

func mutationType(svc *ipam.Service, t *types) *gql.Object {
	str := &gql.InputObjectFieldConfig{Type: gql.String}
	nonNullStr := &gql.InputObjectFieldConfig{Type: gql.NewNonNull(gql.String)}
	strList := &gql.InputObjectFieldConfig{Type: gql.NewList(gql.NewNonNull(gql.String))}
	nonNullInt := &gql.InputObjectFieldConfig{Type: gql.NewNonNull(gql.Int)}
	input := func(name string, fields gql.InputObjectConfigFieldMap) gql.FieldConfigArgument {
		typ := gql.NewInputObject(gql.InputObjectConfig{Name: name, Fields: fields})
		return gql.FieldConfigArgument{"input": {Type: gql.NewNonNull(typ)}}
	}
	vmRef := gql.NewInputObject(gql.InputObjectConfig{
		Name:   "VirtualMachineRefInput",
		Fields: gql.InputObjectConfigFieldMap{"uid": nonNullStr, "hostname": nonNullStr},
	})
	nodeRef := gql.NewInputObject(gql.InputObjectConfig{
		Name:   "NodeRefInput",
		Fields: gql.InputObjectConfigFieldMap{"uid": nonNullStr, "name": nonNullStr},
	})
	ownerRef := gql.NewInputObject(gql.InputObjectConfig{
		Name:        "ObjectReferenceInput",
		Description: "An owner: kind VirtualMachine (name <hostname>/<nic>), FloatingIP, VPC (name router) or Node (name <subnet>).",
		Fields:      gql.InputObjectConfigFieldMap{"kind": nonNullStr, "uid": nonNullStr, "name": nonNullStr},
	})
	nonNullArg := &gql.ArgumentConfig{Type: gql.NewNonNull(gql.String)}
	done := func(err error) (any, error) { return err == nil, err }
	return gql.NewObject(gql.ObjectConfig{
		Name: "Mutation",
		Fields: gql.Fields{
			"createPublicPool": {
				Type:        gql.NewNonNull(t.pool),
				Description: "Creates a public pool (operators only). Two public pools never overlap.",
				Args: input("CreatePublicPoolInput", gql.InputObjectConfigFieldMap{
					"name": nonNullStr, "cidr": nonNullStr, "gateway": str, "exclude": strList, "zone": str,
				}),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					in := objectArg(p.Args, "input")
					return svc.CreatePublicPool(ctx, st.actor, ipam.CreatePublicPoolInput{
						Name: stringArg(in, "name"), CIDR: stringArg(in, "cidr"), Gateway: stringArg(in, "gateway"),
						Exclude: stringsArg(in, "exclude"), Zone: stringArg(in, "zone"),
					})
				}),
			},
			"deletePublicPool": {
				Type:        gql.NewNonNull(gql.Boolean),
				Description: "Deletes a public pool (operators only); refused while it holds addresses.",
				Args:        gql.FieldConfigArgument{"name": nonNullArg},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					return done(svc.DeletePublicPool(ctx, st.actor, stringArg(p.Args, "name")))
				}),
			},
			"createVpc": {
				Type:        gql.NewNonNull(t.vpc),
				Description: "Creates a VPC with its pool vpc-<name> and, with a zone, its router uplink.",
				Args: input("CreateVpcInput", gql.InputObjectConfigFieldMap{
					"namespace": nonNullStr, "name": nonNullStr, "cidr": nonNullStr, "zone": str,
				}),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					in := objectArg(p.Args, "input")
					v, err := svc.CreateVPC(ctx, st.actor, ipam.CreateVPCInput{
						Namespace: stringArg(in, "namespace"), Name: stringArg(in, "name"), CIDR: stringArg(in, "cidr"), Zone: stringArg(in, "zone"),
					})
					if err != nil {
						return nil, err
					}
					return newVPCNode(v), nil
				}),
			},
			"deleteVpc": {
				Type:        gql.NewNonNull(gql.Boolean),
				Description: "Deletes a VPC with its subnets, pool and node addresses, and releases its uplink; refused while it has VM interfaces.",
				Args:        gql.FieldConfigArgument{"namespace": nonNullArg, "name": nonNullArg},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					return done(svc.DeleteVPC(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "name")))
				}),
			},
			"createSubnet": {
				Type: gql.NewNonNull(t.subnet),
				Description: "Creates a subnet inside a VPC's prefix: cidr, or the lowest free prefix of length prefixLength (one of them); " +
					"the gateway defaults to the first host.",
				Args: input("CreateSubnetInput", gql.InputObjectConfigFieldMap{
					"namespace": nonNullStr, "vpc": nonNullStr, "name": nonNullStr, "cidr": str, "prefixLength": {Type: gql.Int}, "gateway": str,
				}),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					in := objectArg(p.Args, "input")
					bits, _ := in["prefixLength"].(int)
					return svc.CreateSubnet(ctx, st.actor, ipam.CreateSubnetInput{
						Namespace: stringArg(in, "namespace"), VPC: stringArg(in, "vpc"), Name: stringArg(in, "name"),
						CIDR: stringArg(in, "cidr"), PrefixLength: bits, Gateway: stringArg(in, "gateway"),
					})
				}),
			},
			"deleteSubnet": {
				Type:        gql.NewNonNull(gql.Boolean),
				Description: "Deletes a subnet and its node addresses; refused while it has VM interfaces.",
				Args:        gql.FieldConfigArgument{"namespace": nonNullArg, "vpc": nonNullArg, "name": nonNullArg},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					return done(svc.DeleteSubnet(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "vpc"), stringArg(p.Args, "name")))
				}),
			},
			"attachInterface": {
				Type:        gql.NewNonNull(t.allocation),
				Description: "Gives a VM's NIC an address in a subnet, owner VirtualMachine <hostname>/<nic>; asking again returns the same address.",
				Args: input("AttachInterfaceInput", gql.InputObjectConfigFieldMap{
					"namespace": nonNullStr, "vpc": nonNullStr, "subnet": nonNullStr,
					"vm": {Type: gql.NewNonNull(vmRef)}, "nic": nonNullInt,
				}),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					in := objectArg(p.Args, "input")
					return svc.AttachInterface(ctx, st.actor, ipam.AttachInterfaceInput{
						Namespace: stringArg(in, "namespace"), VPC: stringArg(in, "vpc"), Subnet: stringArg(in, "subnet"),
						VM: vmRefArg(in), NIC: intArg(in, "nic"),
					})
				}),
			},
			"detachInterface": {
				Type:        gql.NewNonNull(gql.Boolean),
				Description: "Frees the address of a VM's NIC: true when it held one, false when there was nothing to free.",
				Args: input("DetachInterfaceInput", gql.InputObjectConfigFieldMap{
					"namespace": nonNullStr, "vpc": nonNullStr, "vm": {Type: gql.NewNonNull(vmRef)}, "nic": nonNullInt,
				}),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					in := objectArg(p.Args, "input")
					return svc.DetachInterface(ctx, st.actor, ipam.DetachInterfaceInput{
						Namespace: stringArg(in, "namespace"), VPC: stringArg(in, "vpc"), VM: vmRefArg(in), NIC: intArg(in, "nic"),
					})
				}),
			},
			"attachNode": {
				Type:        gql.NewNonNull(t.allocation),
				Description: "Gives a host its own address in a subnet, owner Node <subnet>.",
				Args: input("AttachNodeInput", gql.InputObjectConfigFieldMap{
					"namespace": nonNullStr, "vpc": nonNullStr, "subnet": nonNullStr, "node": {Type: gql.NewNonNull(nodeRef)},
				}),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					in := objectArg(p.Args, "input")
					node := objectArg(in, "node")
					return svc.AttachNode(ctx, st.actor, ipam.AttachNodeInput{
						Namespace: stringArg(in, "namespace"), VPC: stringArg(in, "vpc"), Subnet: stringArg(in, "subnet"),
						Node: ipam.NodeRef{UID: stringArg(node, "uid"), Name: stringArg(node, "name")},
					})
				}),
			},
			"claimFloatingIp": {
				Type:        gql.NewNonNull(t.floatingIP),
				Description: "Claims a public address from a zone's public pools or from one pool (give one of zone and pool).",
				Args: input("ClaimFloatingIpInput", gql.InputObjectConfigFieldMap{
					"namespace": nonNullStr, "name": nonNullStr, "zone": str, "pool": str,
				}),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					in := objectArg(p.Args, "input")
					return svc.ClaimFloatingIP(ctx, st.actor, ipam.ClaimFloatingIPInput{
						Namespace: stringArg(in, "namespace"), Name: stringArg(in, "name"), Zone: stringArg(in, "zone"), Pool: stringArg(in, "pool"),
					})
				}),
			},
			"releaseFloatingIp": {
				Type:        gql.NewNonNull(gql.Boolean),
				Description: "Frees a floating IP and its address.",
				Args:        gql.FieldConfigArgument{"namespace": nonNullArg, "name": nonNullArg},
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					return done(svc.ReleaseFloatingIP(ctx, st.actor, stringArg(p.Args, "namespace"), stringArg(p.Args, "name")))
				}),
			},
			"allocate": {
				Type:        gql.NewNonNull(t.allocation),
				Description: "The seed's Allocate: the owner's address in the pool if it holds one, otherwise the lowest free candidate within the prefix, skipping reserved addresses.",
				Args: input("AllocateInput", gql.InputObjectConfigFieldMap{
					"namespace": str, "pool": nonNullStr, "within": str, "reserved": strList,
					"owner": {Type: gql.NewNonNull(ownerRef)}, "ownerNamespace": str,
				}),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					in := objectArg(p.Args, "input")
					return svc.Allocate(ctx, st.actor, ipam.AllocateInput{
						Namespace: stringArg(in, "namespace"), Pool: stringArg(in, "pool"), Within: stringArg(in, "within"),
						Reserved: stringsArg(in, "reserved"), Owner: ownerArg(objectArg(in, "owner")), OwnerNamespace: stringArg(in, "ownerNamespace"),
					})
				}),
			},
			"release": {
				Type:        gql.NewNonNull(gql.Boolean),
				Description: "Frees the address of a pool named by address or by owner: true when it was held, false when there was nothing to free.",
				Args: input("ReleaseInput", gql.InputObjectConfigFieldMap{
					"namespace": str, "pool": nonNullStr, "address": str, "owner": {Type: ownerRef}, "ownerNamespace": str,
				}),
				Resolve: resolve(func(ctx context.Context, st *requestState, p gql.ResolveParams) (any, error) {
					in := objectArg(p.Args, "input")
					rel := ipam.ReleaseInput{Namespace: stringArg(in, "namespace"), Pool: stringArg(in, "pool"), Address: stringArg(in, "address"),
						OwnerNamespace: stringArg(in, "ownerNamespace")}
					if o := objectArg(in, "owner"); o != nil {
						owner := ownerArg(o)
						rel.Owner = &owner
					}
					return svc.Release(ctx, st.actor, rel)
				}),
			},
		},
	})
}

func stringArg(args map[string]any, name string) string {
	s, _ := args[name].(string)
	return s
}

func intArg(args map[string]any, name string) int {
	n, _ := args[name].(int)
	return n
}

// stringsArg reads a list of strings; nil when not given.
func stringsArg(args map[string]any, name string) []string {
	list, ok := args[name].([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, v := range list {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// objectArg reads an input object; nil when not given.
func objectArg(args map[string]any, name string) map[string]any {
	m, _ := args[name].(map[string]any)
	return m
}

func vmRefArg(in map[string]any) ipam.VMRef {
	vm := objectArg(in, "vm")
	return ipam.VMRef{UID: stringArg(vm, "uid"), Hostname: stringArg(vm, "hostname")}
}

func ownerArg(o map[string]any) ipam.Owner {
	return ipam.Owner{Kind: stringArg(o, "kind"), UID: stringArg(o, "uid"), Name: stringArg(o, "name")}
}

func addrStrings(as []netip.Addr) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.String()
	}
	return out
}
