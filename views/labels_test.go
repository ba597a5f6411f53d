package views

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"pivirt.hu/ipam/internal/schema"
)

func TestReadable(t *testing.T) {
	for name, want := range map[string]string{
		"vlan_id": "VLAN ID", "name": "Name", "site": "Site", "VLAN": "VLAN", "Site": "Site", "NumberPool": "Number pool",
		"IPAddress": "IP address", "mac_address": "MAC address", "ipv4_prefix": "IPv4 prefix", "IPv6Prefix": "IPv6 prefix",
		"is_default": "Is default", "mtu": "MTU", "VirtualMachine": "Virtual machine", "VLANGroup": "VLAN group",
		"vlan2": "Vlan2", "a": "A", "x_y_z": "X y z", "ASNRange": "ASN range", "qos_policy": "QoS policy", "": "",
	} {
		if got := Readable(name); got != want {
			t.Errorf("Readable(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestLabelsPreferTheSchemas(t *testing.T) {
	k := schema.Kind{Namespace: "Ipam", Name: "VLAN"}
	if got := KindLabel(k); got != "VLAN" {
		t.Errorf("KindLabel without a label = %q", got)
	}
	k.Label = "Virtual LAN"
	if got := KindLabel(k); got != "Virtual LAN" {
		t.Errorf("KindLabel = %q, want the schema's", got)
	}
	if got := AttributeLabel(schema.Attribute{Name: "vlan_id"}); got != "VLAN ID" {
		t.Errorf("AttributeLabel without a label = %q", got)
	}
	if got := AttributeLabel(schema.Attribute{Name: "vlan_id", Label: "802.1Q tag"}); got != "802.1Q tag" {
		t.Errorf("AttributeLabel = %q, want the schema's", got)
	}
	if got := RelationshipLabel(schema.Relationship{Name: "site"}); got != "Site" {
		t.Errorf("RelationshipLabel without a label = %q", got)
	}
	if got := RelationshipLabel(schema.Relationship{Name: "site", Label: "Site of the VLAN"}); got != "Site of the VLAN" {
		t.Errorf("RelationshipLabel = %q, want the schema's", got)
	}
}

// FuzzReadable checks that Readable only splits a name into words and
// changes their case: without its spaces and underscores, in lower case,
// it is the name.
func FuzzReadable(f *testing.F) {
	for _, s := range []string{"vlan_id", "IPv6Prefix", "VLANGroup", "NumberPool", "a__b", "_x_", "ÉtéIP", "ǅx", "İd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool {
			return unicode.IsSpace(r) || unicode.ToLower(unicode.ToUpper(r)) != unicode.ToLower(r)
		}) {
			return
		}
		got := Readable(name)
		squash := func(s string) string {
			return strings.ToLower(strings.NewReplacer(" ", "", "_", "").Replace(s))
		}
		if squash(got) != squash(name) {
			t.Fatalf("Readable(%q) = %q", name, got)
		}
	})
}
