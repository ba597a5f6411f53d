package ipam

import (
	"cmp"
	"strconv"
	"strings"
)

// ConsoleVM names a VM the console attaches. The console knows VMs by
// their hostname within a VPC, so the VM's uid is made of the VPC and the
// hostname: attaching the same hostname's NIC again returns its address.
func ConsoleVM(namespace, vpc, hostname string) VMRef {
	return VMRef{UID: "console:" + namespace + "/" + vpc + "/" + hostname, Hostname: hostname}
}

// ParseNIC reads a NIC index as a form writes it: empty is the first NIC,
// 0.
func ParseNIC(s string) (int, error) {
	nic, err := strconv.Atoi(cmp.Or(s, "0"))
	if err != nil {
		return 0, invalid("nic", "nic %s is not a number", describe(s))
	}
	return nic, nil
}

// ParsePrefixLength reads a subnet's size as a form writes it: a prefix
// length such as 24 or /24, or empty (0) when the subnet's CIDR is given
// instead.
func ParsePrefixLength(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	bits, err := strconv.Atoi(strings.TrimPrefix(s, "/"))
	if err != nil {
		return 0, invalid("prefixLength", "prefixLength %s is not a prefix length such as 24", describe(s))
	}
	return bits, nil
}
