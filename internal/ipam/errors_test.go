package ipam

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want Refusal
	}{
		{invalid("cidr", "cidr x is not an IPv4 prefix"), Refusal{CodeInvalidArgument, "cidr", "cidr x is not an IPv4 prefix"}},
		{fmt.Errorf("apply: %w", invalid("zone", "zone z")), Refusal{CodeInvalidArgument, "zone", "zone z"}},
		{notFound("pool", "acme/prod", "vpc-main"), Refusal{CodeNotFound, "", "pool acme/prod/vpc-main not found"}},
		{forbidden("only operators create public pools"), Refusal{CodeForbidden, "", "forbidden: only operators create public pools"}},
		{fieldConflict("cidr", "cidr 10.0.0.0/8 overlaps public pool a"), Refusal{CodeConflict, "cidr", "cidr 10.0.0.0/8 overlaps public pool a"}},
		{conflict("VPC acme/prod/main exists already"), Refusal{CodeConflict, "", "VPC acme/prod/main exists already"}},
		{&ExhaustedError{Pool: "p", Scope: netip.MustParsePrefix("10.0.0.0/30")}, Refusal{CodePoolExhausted, "", "pool p has no free address in 10.0.0.0/30"}},
		{fmt.Errorf("reading: %w", store.ErrUnavailable), Refusal{CodeUnavailable, "", "reading: store: the database is unavailable"}},
		{errors.New("boom"), Refusal{CodeInternal, "", "boom"}},
		// internal/branch's refusals, classified by the same function.
		{&branch.InvalidError{Field: "vlan_id", Message: "vlan_id: a value is required"}, Refusal{CodeInvalidArgument, "vlan_id", "vlan_id: a value is required"}},
		{&branch.NotFoundError{What: "branch add-vlans"}, Refusal{CodeNotFound, "", "branch add-vlans not found"}},
		{&branch.ConflictError{Field: "site", Message: "Violates uniqueness constraint 'site-vlan_id'"}, Refusal{CodeConflict, "site", "Violates uniqueness constraint 'site-vlan_id'"}},
		{&branch.MergeError{Branch: "b", Action: "merge", Fields: []branch.FieldConflict{{Object: "o", Kind: "IpamVLAN", Field: "name"}}},
			Refusal{CodeConflict, "", "cannot merge branch b into main: IpamVLAN o: name changed on both sides"}},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %+v, want %+v", tt.err, got, tt.want)
		}
		if got := Classify(tt.err).Retryable(); got != (tt.want.Code == CodeUnavailable) {
			t.Errorf("Classify(%v).Retryable() = %v", tt.err, got)
		}
	}
}
