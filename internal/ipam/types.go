package ipam

import (
	"net/netip"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/candidates"
)

// PoolKind says who made a pool and who may use it.
type PoolKind string

// The kinds of pool.
const (
	Public  PoolKind = "public"  // cluster-scoped, made by operators
	Private PoolKind = "private" // a VPC's own range, made with the VPC
)

// OwnerKind says what an owner is (docs/allocation.md, "Owners"), and so
// what its name is.
type OwnerKind string

// The four owner kinds.
const (
	OwnerVirtualMachine OwnerKind = "VirtualMachine" // name "<hostname>/<nic index>"
	OwnerFloatingIP     OwnerKind = "FloatingIP"     // name: the floating IP's
	OwnerVPC            OwnerKind = "VPC"            // name "router": the uplink
	OwnerNode           OwnerKind = "Node"           // name "<subnet>": a host's own address
)

// A Pool hands out addresses.
type Pool struct {
	UID       string
	Namespace string // "" for public pools
	Name      string
	Kind      PoolKind
	CIDR      netip.Prefix
	Gateway   netip.Addr // zero when none
	Exclude   []string   // as written: addresses and a-b ranges
	Zone      string
	VPCUID    string // private pools: the owning VPC
	Labels    map[string]string
	// DelegatedPrefixLength is, for a public IPv6 pool that delegates
	// prefixes to VPCs, their length; 0 for a pool that hands out
	// addresses.
	DelegatedPrefixLength int
	CreatedAt             time.Time
	CreatedBy             string
}

// Family is the family of a pool (its prefix's), of an address, or of an
// interface's claim.
func (p Pool) Family() Family { return familyOf(p.CIDR.Addr()) }

// A Family is IPv4 or IPv6.
type Family string

// The two families.
const (
	IPv4 Family = "IPV4"
	IPv6 Family = "IPV6"
)

// familyOf is the family of a.
func familyOf(a netip.Addr) Family {
	if a.Is6() {
		return IPv6
	}
	return IPv4
}

// VPCName is the name of the VPC of a private pool, "" for a public pool.
func (p Pool) VPCName() string {
	if p.VPCUID == "" {
		return ""
	}
	if p.CIDR.Addr().Is6() {
		vpc, _ := candidates.PrivatePoolVPCV6(p.Name)
		return vpc
	}
	vpc, _ := candidates.PrivatePoolVPC(p.Name)
	return vpc
}

// An Owner is what holds an address. Its identity in a pool is its kind,
// its uid and, for a VM, the NIC index of its name, for the other kinds its
// whole name: a VM renamed is the same owner.
type Owner struct {
	Kind OwnerKind
	UID  string
	Name string
}

// ref is the part of the owner's name that is part of its identity.
func (o Owner) ref() string {
	if o.Kind == OwnerVirtualMachine {
		_, nic, _ := strings.Cut(o.Name, "/")
		return nic
	}
	return o.Name
}

// An Allocation is one address held by one owner.
type Allocation struct {
	UID       string
	Namespace string // the pool's
	Name      string // "<pool>-<address>", candidates.AllocationName
	Pool      string
	PoolUID   string
	Address   netip.Addr
	Owner     Owner
	// OwnerNamespace is the tenant namespace of the owner, also for
	// addresses of public pools.
	OwnerNamespace string
	SubnetUID      string
	CreatedAt      time.Time
	CreatedBy      string
}

// A VPC is a tenant's private network with its own pool "vpc-<name>" and,
// with an IPv6 prefix, its IPv6 pool "vpc-<name>-v6".
type VPC struct {
	UID       string
	Namespace string
	Name      string
	CIDR      netip.Prefix
	Zone      string
	// IPv6CIDR is the VPC's IPv6 prefix, zero when it has none: given, or
	// delegated (IPv6Delegated) from a delegation pool of its zone and
	// given back with the VPC.
	IPv6CIDR       netip.Prefix
	IPv6Delegated  bool
	IPv6Addressing IPv6Addressing
	CreatedAt      time.Time
	CreatedBy      string
}

// PoolName returns the name of the VPC's private pool.
func (v VPC) PoolName() string { return candidates.PrivatePoolName(v.Name) }

// IPv6PoolName returns the name of the VPC's IPv6 private pool,
// vpc-<name>-v6.
func (v VPC) IPv6PoolName() string { return candidates.PrivatePoolNameV6(v.Name) }

// IPv6Addressing says how the interfaces of a VPC's IPv6 subnets get their
// addresses (docs/allocation.md).
type IPv6Addressing string

// The ways of IPv6 addressing.
const (
	// LowestFree: the lowest free candidate, as for IPv4.
	LowestFree IPv6Addressing = "LOWEST_FREE"
	// StableOpaque: the interface's own candidates, derived from a keyed
	// hash of the subnet's prefix, the VM's uid and the NIC
	// (candidates.OpaqueAddress): the same address after a detach, and no
	// walk of the subnet from ::1.
	StableOpaque IPv6Addressing = "STABLE_OPAQUE"
)

// A Subnet carves a VPC's prefix.
type Subnet struct {
	UID       string
	VPCUID    string
	Namespace string
	VPC       string
	Name      string
	CIDR      netip.Prefix
	Gateway   netip.Addr
	// IPv6CIDR and IPv6Gateway are the subnet's IPv6 prefix and gateway,
	// zero when it has none.
	IPv6CIDR    netip.Prefix
	IPv6Gateway netip.Addr
	CreatedAt   time.Time
	CreatedBy   string
}

// A FloatingIP is a public address a tenant holds.
type FloatingIP struct {
	UID       string
	Namespace string
	Name      string
	Address   netip.Addr
	Pool      string
	Zone      string
	CreatedAt time.Time
	CreatedBy string
}

// CreatePublicPoolInput creates a public pool.
type CreatePublicPoolInput struct {
	Name    string
	CIDR    string
	Gateway string
	Exclude []string
	Zone    string
	Labels  map[string]string // at most MaxLabels, Kubernetes' rules
	// DelegatedPrefixLength makes an IPv6 pool delegate prefixes of that
	// length to VPCs (CreateVPCInput.IPv6PrefixLength); 0: the pool hands
	// out addresses.
	DelegatedPrefixLength int
}

// UpdatePublicPoolInput changes a public pool's gateway, excludes or zone;
// a nil field keeps the pool's. An empty gateway or zone removes it. The
// prefix never changes.
type UpdatePublicPoolInput struct {
	Name    string
	Gateway *string
	Exclude *[]string
	Zone    *string
}

// CreateVPCInput creates a VPC, its pool and, with a zone, its uplink.
// With an IPv6 prefix, given (IPv6CIDR) or delegated from the zone's
// delegation pools (IPv6PrefixLength), it is dual-stack: its IPv6 pool and,
// when the zone has public IPv6 address pools, its IPv6 uplink too.
type CreateVPCInput struct {
	Namespace, Name, CIDR, Zone string
	IPv6CIDR                    string
	IPv6PrefixLength            int
	IPv6Addressing              string // LOWEST_FREE (default) or STABLE_OPAQUE
}

// CreateSubnetInput creates a subnet of a VPC, with the prefix CIDR or the
// lowest free prefix of length PrefixLength: one of them. In a dual-stack
// VPC it has an IPv6 prefix too: IPv6CIDR, or the VPC's lowest free of
// length IPv6PrefixLength (default 64).
type CreateSubnetInput struct {
	Namespace, VPC, Name, CIDR string
	PrefixLength               int
	Gateway                    string // default: the first host
	IPv6CIDR                   string
	IPv6PrefixLength           int
}

// VMRef names a virtual machine.
type VMRef struct{ UID, Hostname string }

// NodeRef names a host.
type NodeRef struct{ UID, Name string }

// AttachInterfaceInput gives a VM's NIC an address in a subnet.
type AttachInterfaceInput struct {
	Namespace, VPC, Subnet string
	VM                     VMRef
	NIC                    int
	// Family is the family AttachInterface claims; zero: IPv4 where the
	// subnet has it. AttachNic claims both and ignores it.
	Family Family
}

// A Nic is a VM's NIC in a subnet with its address of each family the
// subnet has (AttachNic).
type Nic struct {
	Namespace, VPC, Subnet string
	VM                     VMRef
	NIC                    int
	IPv4, IPv6             *Allocation
}

// DetachInterfaceInput frees a VM NIC's address.
type DetachInterfaceInput struct {
	Namespace, VPC string
	VM             VMRef
	NIC            int
}

// AttachNodeInput gives a host its own address in a subnet.
type AttachNodeInput struct {
	Namespace, VPC, Subnet string
	Node                   NodeRef
	// Family is as AttachInterfaceInput's.
	Family Family
}

// ClaimFloatingIPInput claims a public address from a zone's pools or from
// one pool.
type ClaimFloatingIPInput struct {
	Namespace, Name string
	Zone, Pool      string // one of them
}

// AllocateInput is the input of Allocate(pool, within, reserved, owner).
type AllocateInput struct {
	Namespace string // the pool's; "" for a public pool
	Pool      string
	Within    string
	Reserved  []string
	Owner     Owner
	// OwnerNamespace is the tenant namespace the owner lives in; for a
	// private pool it is the pool's namespace and may be left empty.
	OwnerNamespace string
}

// ReleaseInput frees an address of a pool, named by address or by owner.
type ReleaseInput struct {
	Namespace string
	Pool      string
	Address   string
	Owner     *Owner
	// OwnerNamespace is the tenant namespace of the owner, required to
	// release by owner in a public pool.
	OwnerNamespace string
}

// A Page asks for part of a long list: First items after the cursor After.
type Page struct {
	First int
	After string
	// Search keeps the items whose address or owner contains it.
	Search string
}

// An AllocationPage is part of a pool's allocations, in address order.
type AllocationPage struct {
	Allocations []Allocation
	Total       int    // matching the search, on every page
	EndCursor   string // pass as After for the next page
	HasNext     bool
}
