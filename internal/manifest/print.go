package manifest

import (
	"fmt"
	"io"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"go.yaml.in/yaml/v3"

	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/usage"
)

// A PoolItem is a pool with its usage, a row of the pools table.
type PoolItem struct {
	Pool  ipam.Pool
	Usage usage.Figures
}

// A VPCItem is a VPC with its router and subnets: Parse reads its subnets
// as desired state, its router and default route are status.
type VPCItem struct {
	VPC ipam.VPC
	// Router is the uplink's address and DefaultRoute the gateway of its
	// pool; both zero for a VPC without a zone.
	Router, DefaultRoute netip.Addr
	// IPv6Router and IPv6DefaultRoute are the same of its IPv6 uplink
	// (ipam.Service.IPv6Router); zero for a VPC without one.
	IPv6Router, IPv6DefaultRoute netip.Addr
	Subnets                      []ipam.Subnet
}

// WritePoolsYAML writes each pool as an IPAMPool document, with its
// labels. What it writes Parse accepts again, and ipam.Apply then finds
// unchanged: public pools as they are, private pools as their VPC made
// them.
func WritePoolsYAML(w io.Writer, pools []ipam.Pool) error {
	docs := make([]*yaml.Node, len(pools))
	for i, p := range pools {
		meta := mapping(0, kv("name", str(p.Name)))
		if p.Namespace != "" {
			add(meta, "namespace", str(p.Namespace))
		}
		add(meta, "uid", str(p.UID))
		if len(p.Labels) > 0 {
			add(meta, "labels", labels(p.Labels))
		}
		if p.VPCUID != "" {
			ref := mapping(yaml.FlowStyle, kv("kind", str(KindVPC)), kv("uid", str(p.VPCUID)), kv("controller", boolean(true)))
			add(meta, "ownerRefs", sequence(yaml.FlowStyle, ref))
		}
		spec := mapping(0, kv("cidr", str(p.CIDR.String())), kv("kind", str(string(p.Kind))))
		if p.Gateway.IsValid() {
			add(spec, "gateway", str(p.Gateway.String()))
		}
		if len(p.Exclude) > 0 {
			ex := make([]*yaml.Node, len(p.Exclude))
			for j, e := range p.Exclude {
				ex[j] = str(e)
			}
			add(spec, "exclude", sequence(yaml.FlowStyle, ex...))
		}
		if p.Zone != "" {
			add(spec, "zone", str(p.Zone))
		}
		if p.DelegatedPrefixLength != 0 {
			add(spec, "delegatedPrefixLength", integer(p.DelegatedPrefixLength))
		}
		docs[i] = object(KindPool, meta, spec)
	}
	return writeYAML(w, docs)
}

// WriteAllocationsYAML writes each allocation as an IPAllocation document,
// with its uid and creation time (RFC 3339, UTC).
func WriteAllocationsYAML(w io.Writer, allocations []ipam.Allocation) error {
	docs := make([]*yaml.Node, len(allocations))
	for i, a := range allocations {
		meta := mapping(0, kv("name", str(a.Name)))
		if a.Namespace != "" {
			add(meta, "namespace", str(a.Namespace))
		}
		add(meta, "uid", str(a.UID))
		add(meta, "creationTimestamp", str(a.CreatedAt.UTC().Format(time.RFC3339)))
		add(meta, "labels", mapping(yaml.FlowStyle, kv(ManagedByLabel, str("director"))))
		owner := mapping(yaml.FlowStyle,
			kv("kind", str(string(a.Owner.Kind))), kv("uid", str(a.Owner.UID)), kv("name", str(a.Owner.Name)))
		spec := mapping(0, kv("pool", str(a.Pool)), kv("address", str(a.Address.String())), kv("owner", owner))
		docs[i] = object(KindAllocation, meta, spec)
	}
	return writeYAML(w, docs)
}

// WriteVPCsYAML writes each VPC as a VPC document: its cidr, zone, IPv6
// prefix and subnets as spec, which Parse reads back, and its pools,
// routers, default routes and delegated IPv6 prefix as status, which Parse
// ignores. A VPC's IPv6 prefix is its ipv6Cidr when it was given, its
// length (ipv6PrefixLength) when it was delegated: applied to another
// database, the VPC is delegated a prefix there.
func WriteVPCsYAML(w io.Writer, vpcs []VPCItem) error {
	docs := make([]*yaml.Node, len(vpcs))
	for i, v := range vpcs {
		meta := mapping(0, kv("name", str(v.VPC.Name)), kv("namespace", str(v.VPC.Namespace)))
		if v.VPC.UID != "" {
			add(meta, "uid", str(v.VPC.UID))
		}
		spec := mapping(0, kv("cidr", str(v.VPC.CIDR.String())))
		if v.VPC.Zone != "" {
			add(spec, "zone", str(v.VPC.Zone))
		}
		addIPv6(spec, v.VPC)
		if len(v.Subnets) > 0 {
			subnets := make([]*yaml.Node, len(v.Subnets))
			for j, s := range v.Subnets {
				subnets[j] = mapping(yaml.FlowStyle, kv("name", str(s.Name)), kv("cidr", str(s.CIDR.String())))
				if s.Gateway.IsValid() {
					add(subnets[j], "gateway", str(s.Gateway.String()))
				}
				if s.IPv6CIDR.IsValid() {
					add(subnets[j], "ipv6Cidr", str(s.IPv6CIDR.String()))
				}
			}
			add(spec, "subnets", sequence(0, subnets...))
		}
		status := mapping(0, kv("pool", str(v.VPC.PoolName())))
		if v.Router.IsValid() {
			add(status, "router", str(v.Router.String()))
		}
		if v.DefaultRoute.IsValid() {
			add(status, "defaultRoute", str(v.DefaultRoute.String()))
		}
		if v.VPC.IPv6CIDR.IsValid() {
			add(status, "ipv6Pool", str(v.VPC.IPv6PoolName()))
		}
		if v.IPv6Router.IsValid() {
			add(status, "ipv6Router", str(v.IPv6Router.String()))
		}
		if v.IPv6DefaultRoute.IsValid() {
			add(status, "ipv6DefaultRoute", str(v.IPv6DefaultRoute.String()))
		}
		if v.VPC.IPv6Delegated {
			add(status, "ipv6Cidr", str(v.VPC.IPv6CIDR.String()))
		}
		docs[i] = object(KindVPC, meta, spec)
		add(docs[i], "status", status)
	}
	return writeYAML(w, docs)
}

// addIPv6 adds the IPv6 prefix of the VPC v to its spec: given, or the
// length of the one delegated; and its addressing when it is not the
// default.
func addIPv6(spec *yaml.Node, v ipam.VPC) {
	switch {
	case !v.IPv6CIDR.IsValid():
		return
	case v.IPv6Delegated:
		add(spec, "ipv6PrefixLength", integer(v.IPv6CIDR.Bits()))
	default:
		add(spec, "ipv6Cidr", str(v.IPv6CIDR.String()))
	}
	if v.IPv6Addressing != "" && v.IPv6Addressing != ipam.LowestFree {
		add(spec, "ipv6Addressing", str(string(v.IPv6Addressing)))
	}
}

// WritePoolsTable writes the pools as a table; public pools, which have no
// namespace, show "-". USED and SIZE are exact at any size; a pool that
// delegates prefixes counts them, and says so after its size (256 /56s).
func WritePoolsTable(w io.Writer, pools []PoolItem) error {
	t := newTable(w, "NAMESPACE", "NAME", "KIND", "CIDR", "GATEWAY", "ZONE", "USED", "SIZE")
	for _, p := range pools {
		gateway := ""
		if p.Pool.Gateway.IsValid() {
			gateway = p.Pool.Gateway.String()
		}
		size, used, _ := p.Usage.Counts()
		sizeCell := size.String()
		if p.Usage.Unit != "" {
			sizeCell += " " + p.Usage.Unit
		}
		t.row(p.Pool.Namespace, p.Pool.Name, string(p.Pool.Kind), p.Pool.CIDR.String(), gateway, p.Pool.Zone,
			used.String(), sizeCell)
	}
	return t.flush()
}

// WriteAllocationsTable writes the allocations as a table.
func WriteAllocationsTable(w io.Writer, allocations []ipam.Allocation) error {
	t := newTable(w, "NAMESPACE", "NAME", "POOL", "ADDRESS", "OWNER-KIND", "OWNER-NAME")
	for _, a := range allocations {
		t.row(a.Namespace, a.Name, a.Pool, a.Address.String(), string(a.Owner.Kind), a.Owner.Name)
	}
	return t.flush()
}

// WriteVPCsTable writes the VPCs as a table, with their default route
// ("none" for a router whose pool has no gateway) and the number of their
// subnets; the CIDR of a dual-stack VPC is its two prefixes, IPv4 first,
// separated by a comma.
func WriteVPCsTable(w io.Writer, vpcs []VPCItem) error {
	t := newTable(w, "NAMESPACE", "NAME", "CIDR", "ZONE", "ROUTER", "DEFAULT-ROUTE", "SUBNETS")
	for _, v := range vpcs {
		router, route := "", ""
		if v.Router.IsValid() {
			// A router whose pool has no gateway has no default route.
			router, route = v.Router.String(), "none"
		}
		if v.DefaultRoute.IsValid() {
			route = v.DefaultRoute.String()
		}
		cidr := v.VPC.CIDR.String()
		if v.VPC.IPv6CIDR.IsValid() {
			cidr += "," + v.VPC.IPv6CIDR.String()
		}
		t.row(v.VPC.Namespace, v.VPC.Name, cidr, v.VPC.Zone, router, route, strconv.Itoa(len(v.Subnets)))
	}
	return t.flush()
}

// table aligns columns under a header.
type table struct {
	tw  *tabwriter.Writer
	err error
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{tw: tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)}
	t.row(header...)
	return t
}

// row writes one row; empty cells show "-".
func (t *table) row(cells ...string) {
	for i, c := range cells {
		if c == "" {
			c = "-"
		}
		sep := "\t"
		if i == len(cells)-1 {
			sep = "\n"
		}
		if _, err := io.WriteString(t.tw, c+sep); err != nil && t.err == nil {
			t.err = err
		}
	}
}

func (t *table) flush() error {
	if err := t.tw.Flush(); err != nil && t.err == nil {
		t.err = err
	}
	return t.err
}

// writeYAML writes docs as a YAML stream, separated by "---"; no
// document, nothing.
func writeYAML(w io.Writer, docs []*yaml.Node) error {
	if len(docs) == 0 {
		return nil
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("unable to write YAML: %w", err)
		}
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("unable to write YAML: %w", err)
	}
	return nil
}

// A field is a key and its value, for mapping.
type field struct {
	key   string
	value *yaml.Node
}

func kv(key string, value *yaml.Node) field { return field{key, value} }

// mapping returns a mapping of fields, in order.
func mapping(style yaml.Style, fields ...field) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: style}
	for _, f := range fields {
		add(m, f.key, f.value)
	}
	return m
}

// add appends a field to the mapping m.
func add(m *yaml.Node, key string, value *yaml.Node) {
	m.Content = append(m.Content, str(key), value)
}

// object is a manifest's apiVersion, kind, metadata and spec.
func object(kind string, metadata, spec *yaml.Node) *yaml.Node {
	return mapping(0, kv("apiVersion", str(APIVersion)), kv("kind", str(kind)), kv("metadata", metadata), kv("spec", spec))
}

// labels is a flow mapping of labels in key order.
func labels(m map[string]string) *yaml.Node {
	out := mapping(yaml.FlowStyle)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		add(out, k, str(m[k]))
	}
	return out
}

func sequence(style yaml.Style, items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: style, Content: items}
}

func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func integer(n int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(n)}
}

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}
