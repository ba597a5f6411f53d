package ipam

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
)

// The checks of the requests' fields: each answers a *refusal.InvalidError naming
// the field, in the words of words.go.

var (
	// namespaceRe is one or more labels separated by "/", as "acme/prod".
	namespaceRe = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(/[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)
	// hostnameRe is a VM's hostname.
	hostnameRe = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9.-]{0,251}[a-zA-Z0-9])?$`)
)

const (
	maxNamespaceLen = 253
	maxUIDLen       = 128
)

// ValidatePublicPool checks a public pool as CreatePublicPool and Apply do,
// without the database, and reports every mistake rather than the first:
// the error is a *refusal.InvalidError, or refusal.InvalidErrors, one per mistake (its
// name, its zone, its labels, then its spec's), so that a manifest and a
// form can name the field of each. Whether the pool clashes with stored
// ones is theirs to say.
func ValidatePublicPool(in CreatePublicPoolInput) error {
	errs := []error{checkName("name", in.Name), checkZone("zone", in.Zone)}
	errs = append(errs, labelErrors(in.Labels)...)
	spec, err := candidates.ParsePool(candidates.PoolSpec{CIDR: in.CIDR, Gateway: in.Gateway, Exclude: in.Exclude})
	errs = append(errs, err)
	if err == nil {
		errs = append(errs, checkDelegatedPrefixLength(spec.Prefix, in.DelegatedPrefixLength))
	}
	return refusal.Collect(errs...)
}

// checkDelegatedPrefixLength checks the length of the prefixes a public
// pool of prefix p delegates: 0 (it hands out addresses), or for an IPv6
// pool the length of a VPC's IPv6 prefix inside p.
func checkDelegatedPrefixLength(p netip.Prefix, bits int) error {
	switch {
	case bits == 0:
		return nil
	case p.Addr().Is4():
		return invalid("delegatedPrefixLength", "delegatedPrefixLength is for IPv6 pools: cidr %s is an IPv4 prefix; leave delegatedPrefixLength out", p)
	case bits < max(p.Bits(), minVPCBits6) || bits > maxVPCBits6:
		return invalid("delegatedPrefixLength", "delegatedPrefixLength %d is out of range for cidr %s: %d to %d", bits, p, max(p.Bits(), minVPCBits6), maxVPCBits6)
	}
	return nil
}

// storable reports whether PostgreSQL's text can hold every s: it holds
// no NUL and only valid UTF-8. No stored name is otherwise, so a lookup by
// such a name finds nothing without asking the database, which would
// refuse it with an error.
func storable(ss ...string) bool {
	for _, s := range ss {
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

func checkName(field, s string) error {
	return fromField(candidates.CheckName(field, s))
}

// fromField is the enumerator's mistake as an InvalidError, nil for none.
func fromField(e *candidates.FieldError) error {
	if e == nil {
		return nil
	}
	return &refusal.InvalidError{Field: e.Field, Message: e.Message}
}

func checkNamespace(field, s string) error {
	switch {
	case s == "":
		return invalid(field, "%s is required", field)
	case len(s) > maxNamespaceLen:
		return invalid(field, "%s %s is too long: at most %d characters", field, describe(s), maxNamespaceLen)
	case !namespaceRe.MatchString(s):
		return invalid(field, "%s %s is not a valid namespace: names of lower-case letters, digits and '-', separated by '/', such as acme/prod", field, describe(s))
	}
	return nil
}

func checkZone(field, s string) error {
	return fromField(candidates.CheckZone(field, s))
}

func checkUID(field, s string) error {
	switch {
	case s == "":
		return invalid(field, "%s is required", field)
	case len(s) > maxUIDLen:
		return invalid(field, "%s %s is too long: at most %d characters", field, describe(s), maxUIDLen)
	}
	for _, r := range s {
		if r < 0x21 || r > 0x7e {
			return invalid(field, "%s %s may hold only printable ASCII characters", field, describe(s))
		}
	}
	return nil
}

func checkHostname(field, s string) error {
	switch {
	case s == "":
		return invalid(field, "%s is required", field)
	case len(s) > 253 || !hostnameRe.MatchString(s):
		return invalid(field, "%s %s is not a valid hostname", field, describe(s))
	}
	return nil
}

// checkOwner validates an owner of one of the four kinds (OwnerVPC, …).
func checkOwner(o Owner) error {
	if err := checkUID("owner.uid", o.UID); err != nil {
		return err
	}
	switch o.Kind {
	case OwnerVirtualMachine:
		host, nic, ok := strings.Cut(o.Name, "/")
		if !ok || checkHostname("owner.name", host) != nil || !isNIC(nic) {
			return invalid("owner.name", "owner.name %s of a VirtualMachine must be <hostname>/<nic index>, such as web-01/0", describe(o.Name))
		}
	case OwnerVPC:
		if o.Name != "router" {
			return invalid("owner.name", "owner.name %s of a VPC must be router", describe(o.Name))
		}
	case OwnerFloatingIP, OwnerNode:
		if err := checkName("owner.name", o.Name); err != nil {
			return err
		}
	case "":
		return invalid("owner.kind", "owner.kind is required: VirtualMachine, FloatingIP, VPC or Node")
	default:
		return invalid("owner.kind", "owner.kind %s is not one of VirtualMachine, FloatingIP, VPC, Node", describe(string(o.Kind)))
	}
	return nil
}

func isNIC(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n < 1024 && strconv.Itoa(n) == s
}

func checkNIC(field string, n int) error {
	if n < 0 || n >= 1024 {
		return invalid(field, "%s %d is out of range: 0 to 1023", field, n)
	}
	return nil
}

// parseAddr reads an IPv4 address of a request field.
func parseAddr(field, s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return netip.Addr{}, invalid(field, "%s %s is not an IPv4 address such as 10.0.0.1", field, describe(s))
	}
	return a, nil
}

// cutRange splits "a - b" into its trimmed ends.
func cutRange(s string) (from, to string, ok bool) {
	from, to, ok = strings.Cut(s, "-")
	return strings.TrimSpace(from), strings.TrimSpace(to), ok
}
