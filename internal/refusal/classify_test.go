package refusal_test

import (
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/ipam"
	. "pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want Refusal
	}{
		{&InvalidError{Field: "cidr", Message: "cidr x is not an IPv4 prefix"}, Refusal{Code: CodeInvalidArgument, Field: "cidr", Message: "cidr x is not an IPv4 prefix",
			Fields: []FieldRefusal{{"cidr", "CIDR x is not an IPv4 prefix"}}}},
		{fmt.Errorf("apply: %w", &InvalidError{Field: "zone", Message: "zone z"}), Refusal{Code: CodeInvalidArgument, Field: "zone", Message: "zone z", Fields: []FieldRefusal{{"zone", "Zone z"}}}},
		{&NotFoundError{What: "pool acme/prod/vpc-main"}, Refusal{Code: CodeNotFound, Field: "", Message: "pool acme/prod/vpc-main not found"}},
		{fmt.Errorf("%w: only operators create public pools", ErrForbidden), Refusal{Code: CodeForbidden, Field: "", Message: "forbidden: only operators create public pools"}},
		{&ConflictError{Field: "cidr", Message: "cidr 10.0.0.0/8 overlaps public pool a"}, Refusal{Code: CodeConflict, Field: "cidr", Message: "cidr 10.0.0.0/8 overlaps public pool a",
			Fields: []FieldRefusal{{"cidr", "CIDR 10.0.0.0/8 overlaps public pool a"}}}},
		{&ConflictError{Message: "VPC acme/prod/main exists already"}, Refusal{Code: CodeConflict, Field: "", Message: "VPC acme/prod/main exists already"}},
		{&ipam.ExhaustedError{Pool: "p", Scope: netip.MustParsePrefix("10.0.0.0/30")}, Refusal{Code: CodePoolExhausted, Field: "", Message: "pool p has no free address in 10.0.0.0/30"}},
		{fmt.Errorf("reading: %w", store.ErrUnavailable), Refusal{Code: CodeUnavailable, Field: "", Message: "reading: store: the database is unavailable"}},
		{errors.New("boom"), Refusal{Code: CodeInternal, Field: "", Message: "boom"}},
		// internal/branch's refusals.
		{&InvalidError{Field: "vlan_id", Message: "vlan_id: a value is required"}, Refusal{Code: CodeInvalidArgument, Field: "vlan_id", Message: "vlan_id: a value is required",
			Fields: []FieldRefusal{{"vlan_id", "Vlan id: a value is required"}}}},
		{&NotFoundError{What: "branch add-vlans"}, Refusal{Code: CodeNotFound, Field: "", Message: "branch add-vlans not found"}},
		{&ConflictError{Field: "site", Message: "Violates uniqueness constraint 'site-vlan_id'"}, Refusal{Code: CodeConflict, Field: "site", Message: "Violates uniqueness constraint 'site-vlan_id'",
			Fields: []FieldRefusal{{"site", "Violates uniqueness constraint 'site-vlan_id'"}}}},
		{&branch.MergeError{Branch: "b", Action: "merge", Fields: []branch.FieldConflict{{Object: "o", Kind: "IpamVLAN", Field: "name", Label: "users",
			Main: branch.Value{Set: true, Text: "users-main"}, Branch: branch.Value{Set: true, Text: "users-b"}}}},
			Refusal{Code: CodeConflict, Field: "", Message: `cannot merge branch b into main: IpamVLAN users (id o): name changed on both sides (main: "users-main", branch: "users-b"); ` +
				"keep one side of each conflict on the branch's page (/branches/b) or change one side, then merge again"}},
		// Every mistake of a request: the first's field and message, and
		// each in plain words by its field.
		{Collect(&InvalidError{Field: "name", Message: `name "B!" is not a valid name`}, candidates.Errors{
			{Field: "gateway", Message: "gateway 10.0.0.1 is outside cidr 192.0.2.0/24"},
			{Field: "exclude[0]", Message: "exclude[0] 192.0.3.10 is outside cidr 192.0.2.0/24"},
		}), Refusal{Code: CodeInvalidArgument, Field: "name", Message: `name "B!" is not a valid name`, Fields: []FieldRefusal{
			{"name", `Name "B!" is not a valid name`},
			{"gateway", "Gateway 10.0.0.1 is outside 192.0.2.0/24"},
			{"exclude[0]", "Exclude 192.0.3.10 is outside 192.0.2.0/24"},
		}}},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Classify(%v) = %+v, want %+v", tt.err, got, tt.want)
		}
		if got := Classify(tt.err).Retryable(); got != (tt.want.Code == CodeUnavailable) {
			t.Errorf("Classify(%v).Retryable() = %v", tt.err, got)
		}
	}
}
