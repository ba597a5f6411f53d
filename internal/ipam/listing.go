package ipam

import (
	"errors"

	"pivirt.hu/ipam/internal/candidates"
)

// ValidatePublicPool checks a public pool as CreatePublicPool and Apply do,
// without the database, and reports every mistake rather than the first:
// the error joins (errors.Join) one *InvalidError per mistake, so that a
// manifest can name the field of each. Whether the pool clashes with stored
// ones is theirs to say.
func ValidatePublicPool(in CreatePublicPoolInput) error {
	var errs []error
	if err := checkName("name", in.Name); err != nil {
		errs = append(errs, err)
	}
	if err := checkZone("zone", in.Zone); err != nil {
		errs = append(errs, err)
	}
	_, err := candidates.ParsePool(candidates.PoolSpec{CIDR: in.CIDR, Gateway: in.Gateway, Exclude: in.Exclude})
	var fields candidates.Errors
	if errors.As(err, &fields) {
		for _, f := range fields {
			errs = append(errs, &InvalidError{Field: f.Field, Message: f.Message})
		}
	} else if err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, labelErrors(in.Labels)...)
	return errors.Join(errs...)
}
