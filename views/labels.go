package views

import (
	"cmp"
	"strings"
	"unicode"

	"pivirt.hu/ipam/internal/schema"
)

// The console names a kind, an attribute and a relationship by its label
// (label: in the schema) and, when the schema gives none, by its name made
// readable (Readable): vlan_id reads "VLAN ID", NumberPool "Number pool".

// KindLabel is how the console names the kind: its label, else its name
// (without the namespace) made readable.
func KindLabel(k schema.Kind) string { return cmp.Or(k.Label, Readable(k.Name)) }

// AttributeLabel is how the console names the attribute.
func AttributeLabel(a schema.Attribute) string { return cmp.Or(a.Label, Readable(a.Name)) }

// RelationshipLabel is how the console names the relationship.
func RelationshipLabel(r schema.Relationship) string { return cmp.Or(r.Label, Readable(r.Name)) }

// initialisms are the words Readable writes as initialisms, by their
// lower case.
var initialisms = map[string]string{
	"acl": "ACL", "api": "API", "asn": "ASN", "bgp": "BGP", "cidr": "CIDR", "cpu": "CPU", "dhcp": "DHCP", "dns": "DNS",
	"fqdn": "FQDN", "id": "ID", "ip": "IP", "ipv4": "IPv4", "ipv6": "IPv6", "lacp": "LACP", "mac": "MAC", "mtu": "MTU",
	"nat": "NAT", "nic": "NIC", "ntp": "NTP", "ospf": "OSPF", "qos": "QoS", "snmp": "SNMP", "ssh": "SSH", "tcp": "TCP",
	"tls": "TLS", "udp": "UDP", "uid": "UID", "url": "URL", "uuid": "UUID", "vlan": "VLAN", "vm": "VM", "vni": "VNI",
	"vpc": "VPC", "vrf": "VRF", "vxlan": "VXLAN",
}

// Readable writes a name of the schema in words, in sentence case: the
// name splits into words at underscores (vlan_id: vlan, id) and where a
// capital starts a word (NumberPool: Number, Pool; IPAddress: IP,
// Address; IPv6Prefix: IPv6, Prefix); a word of initialisms is written in capitals (vlan: VLAN,
// ipv4: IPv4), a word the name writes in capitals stays so (VLAN), any
// other is written in lower case; the first letter is a capital.
// vlan_id reads "VLAN ID", IPAddress "IP address", is_default "Is default".
func Readable(name string) string {
	words := splitName(name)
	for i, w := range words {
		switch spelt, ok := initialisms[strings.ToLower(w)]; {
		case ok:
			words[i] = spelt
		case len(w) > 1 && strings.ToUpper(w) == w:
		default:
			words[i] = strings.ToLower(w)
		}
	}
	out := []rune(strings.Join(words, " "))
	if len(out) > 0 {
		out[0] = unicode.ToUpper(out[0])
	}
	return string(out)
}

// startsWord reports whether the capital at i of a run of capitals
// starts a word: a lowercase letter follows it, and the run with what
// follows is not an initialism (IPv6).
func startsWord(runes []rune, i int) bool {
	if i+1 >= len(runes) || !unicode.IsLower(runes[i+1]) {
		return false
	}
	end := i + 1
	for end < len(runes) && (unicode.IsLower(runes[end]) || unicode.IsDigit(runes[end])) {
		end++
	}
	_, ok := initialisms[strings.ToLower(string(runes[:end]))]
	return !ok
}

// splitName splits a name into its words, as Readable says.
func splitName(name string) []string {
	var words []string
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' }) {
		runes := []rune(part)
		start := 0
		for i := 1; i < len(runes); i++ {
			prev, cur := runes[i-1], runes[i]
			if unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && startsWord(runes[start:], i-start)) {
				words = append(words, string(runes[start:i]))
				start = i
			}
		}
		words = append(words, string(runes[start:]))
	}
	return words
}
