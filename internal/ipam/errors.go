package ipam

import (
	"fmt"
	"net/netip"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
)

// The errors of this package are internal/refusal's (*refusal.InvalidError
// and refusal.InvalidErrors, *refusal.NotFoundError, *refusal.ConflictError,
// refusal.ErrForbidden), *ExhaustedError and *QuotaError, which
// refusal.Classify classifies for every edge; or the database's.

func invalid(field, format string, args ...any) error {
	return &refusal.InvalidError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// notFound names what was not found: "pool acme/prod/vpc-main", or
// without a namespace "pool public-a".
func notFound(kind, namespace, name string) error {
	if namespace == "" {
		return &refusal.NotFoundError{What: kind + " " + name}
	}
	return &refusal.NotFoundError{What: kind + " " + namespace + "/" + name}
}

func conflict(format string, args ...any) error {
	return &refusal.ConflictError{Message: fmt.Sprintf(format, args...)}
}

// fieldConflict is a conflict of one field of the request.
func fieldConflict(field, format string, args ...any) error {
	return &refusal.ConflictError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// An ExhaustedError says which pool and which range have no free address,
// which zone has none in any of its public pools, or which VPC has no free
// prefix of a length for a subnet.
type ExhaustedError struct {
	Pool  string
	Scope netip.Prefix // the request's within, or the pool's (or the VPC's) cidr
	Zone  string       // set when every pool of the zone is exhausted
	VPC   string       // set when the VPC has no free prefix of length Bits
	Bits  int
	// Delegated is set, with Zone and Bits, when no delegation pool of the
	// zone has a free prefix of length Bits.
	Delegated bool
}

// Error says it in the words the browser's predictions use.
func (e *ExhaustedError) Error() string {
	switch {
	case e.Delegated:
		return fmt.Sprintf("zone %s has no free /%d in its delegation pools: give the VPC's IPv6 prefix as ipv6Cidr, or ask an operator for another public IPv6 pool with delegatedPrefixLength %d in zone %s",
			e.Zone, e.Bits, e.Bits, e.Zone)
	case e.Zone != "":
		return candidates.NoFreeAddressInZone(e.Zone)
	case e.VPC != "":
		return candidates.NoFreePrefix(e.VPC, e.Bits, e.Scope)
	}
	return candidates.NoFreeAddress(e.Pool, e.Scope)
}

// Unwrap makes errors.Is(err, refusal.ErrPoolExhausted) hold.
func (e *ExhaustedError) Unwrap() error { return refusal.ErrPoolExhausted }

// forbidden says what the actor may not do.
func forbidden(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{refusal.ErrForbidden}, args...)...)
}
