// Package audit holds the documents of the audit log, one Go type per kind
// of change (Pool, Allocation, Object…), which the writers store and the
// readers decode, so that the two cannot drift apart; Decode reads an
// entry's documents as the type of its kind and action (shapes), and
// Describe tells the change in a sentence, its objects by their names and
// display labels, with what it changed before → after. Pure: the standard
// library only, so that the store, the domains and the edges share it.
//
// The keys of the documents written by SQL (internal/store's claims and
// releases of addresses and numbers, and the function claim_address of
// its migrations) are the json tags of these types: store's
// TestSQLWrittenAuditDecodes checks every one of them.
package audit

import (
	"encoding/json"
	"time"
)

// The kinds of objects the audit log records changes of, besides the
// objects of the kinds of a branch's schema, whose kind is their kind's
// full name (IpamVLAN).
const (
	KindAllocation    = "IPAllocation"
	KindPool          = "IPAMPool"
	KindVPC           = "VPC"
	KindSubnet        = "Subnet"
	KindFloatingIP    = "FloatingIP"
	KindQuota         = "Quota"
	KindBranch        = "Branch"
	KindSchema        = "Schema"
	KindNumberPool    = "CoreNumberPool"
	KindUser          = "User"
	KindToken         = "APIToken"
	KindClusterSecret = "ClusterSecret"
)

// The actions of the audit log.
const (
	Create      = "create"
	Update      = "update"
	Delete      = "delete"
	Allocate    = "allocate"
	Release     = "release"
	Rename      = "rename"
	SetLabels   = "set-labels"
	Merge       = "merge"
	Rebase      = "rebase"
	Load        = "load"
	SetPassword = "set-password"
	EndSessions = "end-sessions"
	Revoke      = "revoke"
	Rotate      = "rotate"
	Resolve     = "resolve"
)

// A Payload is a document of an audit entry, its before or its after: one
// of the types of this file.
type Payload interface{ payload() }

// Encode writes p as the JSON document an audit entry stores.
func Encode(p Payload) ([]byte, error) {
	return json.Marshal(p)
}

// An Owner is what holds an address: a VirtualMachine "<hostname>/<nic>",
// a FloatingIP by its name, a VPC's "router", a Node by its subnet.
type Owner struct {
	Kind string `json:"kind"`
	UID  string `json:"uid"`
	Name string `json:"name"`
}

// An Allocation is an address held (KindAllocation): allocated (after),
// released (before), renamed (before and after, which differ in the
// owner's name). Written by SQL only.
type Allocation struct {
	// Pool is the pool's name; the entry's namespace is the pool's.
	Pool    string `json:"pool"`
	Address string `json:"address"`
	Owner   Owner  `json:"owner"`
	// OwnerNamespace is the namespace of the owner: the tenant's, also in
	// a public pool.
	OwnerNamespace string `json:"ownerNamespace"`
	// Subnet is the name of the subnet of the VPC the address lies in, ""
	// (null) for none: an address of a public pool, or recorded before
	// the entries named it (migration 0021), as were a rename's pool and
	// address.
	Subnet string `json:"subnet"`
}

// A Pool is an IP pool (KindPool), created (after), changed (both) or
// deleted (before).
type Pool struct {
	UID       string            `json:"uid"`
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Kind      string            `json:"kind"` // public or private
	CIDR      string            `json:"cidr"`
	Gateway   string            `json:"gateway,omitempty"`
	Exclude   []string          `json:"exclude"`
	Zone      string            `json:"zone"`
	Labels    map[string]string `json:"labels,omitempty"`
	// DelegatedPrefixLength is a delegation pool's (ipam.Pool).
	DelegatedPrefixLength int `json:"delegatedPrefixLength,omitempty"`
}

// PoolLabels are a pool's labels, before and after a manifest set them
// (KindPool, SetLabels).
type PoolLabels struct {
	UID    string            `json:"uid"`
	Labels map[string]string `json:"labels"`
}

// A VPC is created (after) or deleted (before); its creation names its
// private pool and, with a zone, its router's uplink address.
type VPC struct {
	UID    string `json:"uid"`
	CIDR   string `json:"cidr"`
	Zone   string `json:"zone"`
	Pool   string `json:"pool,omitempty"`
	Router string `json:"router,omitempty"`
	// The VPC's IPv6 prefix, whether it was delegated, its IPv6 pool and
	// uplink, and how its interfaces get their IPv6 addresses.
	IPv6CIDR       string `json:"ipv6Cidr,omitempty"`
	IPv6Delegated  bool   `json:"ipv6Delegated,omitempty"`
	IPv6Pool       string `json:"ipv6Pool,omitempty"`
	IPv6Router     string `json:"ipv6Router,omitempty"`
	IPv6Addressing string `json:"ipv6Addressing,omitempty"`
}

// A Subnet of a VPC is created (after) or deleted (before); the entry's
// name is "<vpc>/<subnet>".
type Subnet struct {
	UID     string `json:"uid"`
	CIDR    string `json:"cidr"`
	Gateway string `json:"gateway"`
	// The subnet's IPv6 prefix and gateway.
	IPv6CIDR    string `json:"ipv6Cidr,omitempty"`
	IPv6Gateway string `json:"ipv6Gateway,omitempty"`
}

// A FloatingIP is claimed (Create, after) or released (Delete, before).
type FloatingIP struct {
	UID     string `json:"uid"`
	Pool    string `json:"pool"`
	Address string `json:"address"`
}

// A Quota is set (Create, after), changed (Update, both) or unset (Delete,
// before); the entry's name is its pattern.
type Quota struct {
	Pattern string `json:"pattern"`
	// Limits are by kind of quota: vpcs, subnets, floating_ips, addresses.
	Limits map[string]int64 `json:"limits"`
}

// A Branch is created (after) or deleted (before).
type Branch struct {
	ID           int64     `json:"id"`
	Name         string    `json:"name"`
	IsDefault    bool      `json:"is_default"`
	BranchedFrom time.Time `json:"branched_from"`
	Point        int64     `json:"point"`
	OwnSchema    bool      `json:"own_schema"`
	CreatedAt    time.Time `json:"created_at"`
	CreatedBy    string    `json:"created_by"`
}

// An Integration is a branch merged into main or rebased on it (after):
// the objects it changed and its schema's changes.
type Integration struct {
	Branch string `json:"branch"`
	// BranchedFrom is the branch point it had: the number of the last
	// change of main it saw.
	BranchedFrom int64 `json:"branched_from"`
	// Objects are the ids of the objects it changed.
	Objects []string `json:"objects"`
	// Schema are its schema's changes, one line each.
	Schema []string `json:"schema"`
}

// SchemaChanges are the changes a schema loaded on a branch made, one line
// each ("added attribute IpamVLAN.note (id …)"): KindSchema, Load, after.
type SchemaChanges []string

// An Object is an object of a kind of the branch's schema (the entry's
// kind is the kind's full name, its name the object's id), created
// (after), changed (both) or deleted (before).
type Object struct {
	ID           string `json:"id"`
	Kind         string `json:"kind"`
	DisplayLabel string `json:"display_label"`
	// Attributes are the values by attribute name, as JSON values.
	Attributes map[string]any `json:"attributes"`
	// Relationships are the peers' ids by relationship name.
	Relationships map[string][]string `json:"relationships"`
}

// An ObjectDeletion is the after of a deletion that removed the object from
// other objects' optional relationships.
type ObjectDeletion struct {
	Deleted              bool     `json:"deleted"`
	RelationshipsCleared []string `json:"relationships_cleared"`
}

// A Resolution is the side of a merge's conflict an operator chose (after;
// the entry's kind is the object's kind, its name the object's id, its
// branch the branch whose merge it resolves): Field is the attribute or
// relationship ("" for an object deleted on one side and changed on the
// other), Side "main" or "branch", Main and Branch what each side held
// when it was chosen (nil for a deletion).
type Resolution struct {
	DisplayLabel string  `json:"display_label"`
	Field        string  `json:"field"`
	Side         string  `json:"side"`
	Main         *string `json:"main"`
	Branch       *string `json:"branch"`
}

// A NumberRange is a range of a number pool.
type NumberRange struct {
	Start  int64 `json:"start"`
	End    int64 `json:"end"`
	Weight int   `json:"weight"`
}

// A ScopeElement is an attribute or a relationship that divides a number
// pool's numbers.
type ScopeElement struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Relationship bool   `json:"relationship"`
}

// A NumberPool is created (after), changed (both) or deleted (before).
type NumberPool struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	Node            string         `json:"node"`
	NodeID          string         `json:"node_id"`
	NodeAttribute   string         `json:"node_attribute"`
	NodeAttributeID string         `json:"node_attribute_id"`
	AllocationScope []ScopeElement `json:"allocation_scope"`
	Ranges          []NumberRange  `json:"ranges"`
	CreatedAt       time.Time      `json:"created_at"`
	CreatedBy       string         `json:"created_by"`
}

// A NumberAllocation is a number of a number pool allocated to an object
// (KindNumberPool, Allocate, after). Written by SQL only.
type NumberAllocation struct {
	// Pool is the pool's name then; PoolID its id.
	Pool   string `json:"pool"`
	PoolID string `json:"pool_id"`
	// Division is the values of the pool's scope elements that divide
	// its numbers (peers' ids, attributes' values); null without a scope.
	Division json.RawMessage `json:"division"`
	Number   int64           `json:"number"`
	// Identifier is what the number is allocated to: the object's id.
	Identifier string `json:"identifier"`
	Object     string `json:"object"`
}

// A NumberRelease is a number no object holds any more, freed (Release,
// before). Written by SQL only.
type NumberRelease struct {
	NumberAllocation
	// AllocatedOn is the branch the number was allocated on.
	AllocatedOn string `json:"allocated_on"`
}

// A User is added (Create, after); a new password or the end of its
// sessions changes nothing of it (both, alike).
type User struct {
	Name       string    `json:"name"`
	Role       string    `json:"role"`
	Namespaces []string  `json:"namespaces"`
	CreatedAt  time.Time `json:"createdAt"`
}

// A Token is an API token of a user (the entry's name), created (after):
// never the token nor its hash.
type Token struct {
	ID        int64     `json:"id"`
	User      string    `json:"user"`
	CreatedAt time.Time `json:"createdAt"`
}

// Tokens are the tokens of a user revoked together (Revoke, before).
type Tokens []Token

func (Allocation) payload()       {}
func (Pool) payload()             {}
func (PoolLabels) payload()       {}
func (VPC) payload()              {}
func (Subnet) payload()           {}
func (FloatingIP) payload()       {}
func (Quota) payload()            {}
func (Branch) payload()           {}
func (Integration) payload()      {}
func (SchemaChanges) payload()    {}
func (Object) payload()           {}
func (ObjectDeletion) payload()   {}
func (Resolution) payload()       {}
func (NumberPool) payload()       {}
func (NumberAllocation) payload() {}
func (NumberRelease) payload()    {}
func (User) payload()             {}
func (Token) payload()            {}
func (Tokens) payload()           {}
