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
	CreatedAt time.Time
	CreatedBy string
}

// VPCName is the name of the VPC of a private pool, "" for a public pool.
func (p Pool) VPCName() string {
	if p.VPCUID == "" {
		return ""
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
	Name      string // "<pool>-<a-b-c-d>"
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

// A VPC is a tenant's private network with its own pool "vpc-<name>".
type VPC struct {
	UID       string
	Namespace string
	Name      string
	CIDR      netip.Prefix
	Zone      string
	CreatedAt time.Time
	CreatedBy string
}

// PoolName returns the name of the VPC's private pool.
func (v VPC) PoolName() string { return candidates.PrivatePoolName(v.Name) }

// A Subnet carves a VPC's prefix.
type Subnet struct {
	UID       string
	VPCUID    string
	Namespace string
	VPC       string
	Name      string
	CIDR      netip.Prefix
	Gateway   netip.Addr
	CreatedAt time.Time
	CreatedBy string
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
type CreateVPCInput struct {
	Namespace, Name, CIDR, Zone string
}

// CreateSubnetInput creates a subnet of a VPC, with the prefix CIDR or the
// lowest free prefix of length PrefixLength: one of them.
type CreateSubnetInput struct {
	Namespace, VPC, Name, CIDR string
	PrefixLength               int
	Gateway                    string // default: the first host
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
