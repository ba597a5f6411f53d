package ipam

import (
	"context"
	"errors"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/store"
)

// OpaqueKey returns the key of the VPC's stable opaque addresses
// (candidates.OpaqueAddress), for the console's VPC page, whose attach form
// computes in the browser the address the server will give: only to an
// actor who may see the VPC, which answers as if it did not exist to
// anyone else; nil for a VPC whose interfaces take the lowest free
// addresses. docs/allocation.md ("Stable opaque addresses") says why its
// readers may hold it. No other answer (GraphQL, manifests, the audit)
// carries it.
func (s *Service) OpaqueKey(ctx context.Context, actor auth.Actor, v VPC) ([]byte, error) {
	if !actor.CanAccess(v.Namespace) {
		return nil, notFound("VPC", v.Namespace, v.Name)
	}
	r, err := store.VPC(ctx, s.db, v.Namespace, v.Name, false)
	switch {
	case errors.Is(err, store.ErrNotFound) || err == nil && r.UID != v.UID:
		return nil, notFound("VPC", v.Namespace, v.Name)
	case err != nil:
		return nil, err
	case IPv6Addressing(r.IPv6Addressing) != StableOpaque:
		return nil, nil
	}
	return r.IPv6Key, nil
}
