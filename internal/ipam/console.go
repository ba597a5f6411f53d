package ipam

import (
	"cmp"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
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

// AttachForm is the console's attach form as typed: a VM's hostname and
// NIC index, and the subnet.
type AttachForm struct {
	Subnet, Hostname, NIC string
}

// Input reads the form into an attachment in the VPC namespace/vpc, or
// refuses every mistake of its fields at once: the hostname's and the
// NIC's.
func (f AttachForm) Input(namespace, vpc string) (AttachInterfaceInput, error) {
	nic, err := ParseNIC(f.NIC)
	if err == nil {
		err = checkNIC("nic", nic)
	}
	in := AttachInterfaceInput{Namespace: namespace, VPC: vpc, Subnet: f.Subnet, VM: ConsoleVM(namespace, vpc, f.Hostname), NIC: nic}
	return in, refusal.Collect(checkHostname("vm.hostname", f.Hostname), err)
}

// SubnetForm is the console's new subnet form as typed: a name, and a
// prefix length or a CIDR, and a gateway.
type SubnetForm struct {
	Name, PrefixLength, CIDR, Gateway string
}

// Input reads the form into a new subnet of the VPC namespace/vpc, or
// refuses every mistake of its fields at once, as CreateSubnet checks
// them; a prefix length that is no number is refused with the others,
// which are checked as of a subnet by its CIDR or of the longest length.
func (f SubnetForm) Input(namespace, vpc string) (CreateSubnetInput, error) {
	bits, err := ParsePrefixLength(f.PrefixLength)
	in := CreateSubnetInput{Namespace: namespace, VPC: vpc, Name: f.Name, CIDR: f.CIDR, PrefixLength: bits, Gateway: f.Gateway}
	if err == nil {
		_, err := checkSubnetInput(in)
		return in, err
	}
	probe := in
	if probe.CIDR == "" {
		probe.PrefixLength = candidates.MaxSubnetBits
	}
	_, others := checkSubnetInput(probe)
	return in, refusal.Collect(others, err)
}
