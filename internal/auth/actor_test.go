package auth

import "testing"

func TestCanAccess(t *testing.T) {
	acme := Actor{Name: "acme", Role: Tenant, Namespaces: []string{"acme/*", "shared/dns"}}
	tests := []struct {
		actor     Actor
		namespace string
		want      bool
	}{
		{acme, "acme/prod", true},
		{acme, "acme/prod/eu", true},
		{acme, "acme", false},
		{acme, "acme/", false},
		{acme, "acme-corp/prod", false},
		{acme, "shared/dns", true},
		{acme, "shared/dns2", false},
		{acme, "", false},
		{Actor{Name: "nobody", Role: Tenant}, "acme/prod", false},
		{Actor{Name: "odd", Role: "", Namespaces: []string{"acme/*"}}, "acme/prod", false},
		{Actor{Name: "root", Role: Operator}, "", true},
		{Actor{Name: "root", Role: Operator}, "globex/prod", true},
		{System, "acme/prod", true},
	}
	for _, tt := range tests {
		if got := tt.actor.CanAccess(tt.namespace); got != tt.want {
			t.Errorf("(%s %v).CanAccess(%q) = %v, want %v", tt.actor.Role, tt.actor.Namespaces, tt.namespace, got, tt.want)
		}
	}
}
