package ipam

import (
	"crypto/rand"
	"fmt"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// The names of the objects the service makes: a VPC's private pool's
// (candidates.PrivatePoolName, candidates.PrivatePoolNameV6), an
// allocation's (candidates.AllocationName), a new uid.

// vpcOfPool is the name of the VPC of a private pool's row, "" for a
// public pool's.
func vpcOfPool(p store.PoolRow) string {
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

// newUID returns a random (version 4) UUID.
func newUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
