package ipam

import (
	"pivirt.hu/ipam/internal/candidates"

	"pivirt.hu/ipam/internal/refusal"
)

// ValidatePublicPool checks a public pool as CreatePublicPool and Apply do,
// without the database, and reports every mistake rather than the first:
// the error is an *refusal.InvalidError, or refusal.InvalidErrors, one per mistake (its
// name, its zone, its labels, then its spec's), so that a manifest and a
// form can name the field of each. Whether the pool clashes with stored
// ones is theirs to say.
func ValidatePublicPool(in CreatePublicPoolInput) error {
	errs := []error{checkName("name", in.Name), checkZone("zone", in.Zone)}
	errs = append(errs, labelErrors(in.Labels)...)
	_, err := candidates.ParsePool(candidates.PoolSpec{CIDR: in.CIDR, Gateway: in.Gateway, Exclude: in.Exclude})
	return refusal.Collect(append(errs, err)...)
}
