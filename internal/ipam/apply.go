package ipam

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// The kinds of object Apply takes, as manifests name them.
const (
	KindPool = "IPAMPool"
	KindVPC  = "VPC"
)

// PrivatePoolRefusal is the refusal of a private pool that no VPC made.
const PrivatePoolRefusal = "private pools are created for each VPC; create a VPC instead"

// An ApplyObject is one object of a manifest; exactly one field is set.
type ApplyObject struct {
	PublicPool  *CreatePublicPoolInput
	PrivatePool *PrivatePoolInput
	VPC         *ApplyVPCInput
}

// PrivatePoolInput is a VPC's private pool as a manifest gives it. Apply
// accepts it when it is the pool its VPC made, and sets its labels.
type PrivatePoolInput struct {
	Namespace, Name, CIDR string
	VPCUID                string // its owner's uid
	Labels                map[string]string
}

// ApplyVPCInput is a VPC with subnets, as a manifest gives it.
type ApplyVPCInput struct {
	CreateVPCInput
	// UID, when not empty, is the VPC's uid: a new VPC is created with it
	// (so that a manifest applied to another database keeps its uids), and
	// an existing one must have it.
	UID string
	// Subnets are subnets the VPC has, by CIDR; Namespace and VPC are the
	// VPC's, Gateway the first host when empty.
	Subnets []CreateSubnetInput
}

// An ApplyState says what Apply did with an object.
type ApplyState string

// The states of an applied object.
const (
	Created    ApplyState = "created"
	Unchanged  ApplyState = "unchanged"
	Configured ApplyState = "configured" // a pool's labels set, a VPC's subnets added
)

// Applied is what Apply did with one object.
type Applied struct {
	Kind      string // KindPool or KindVPC
	Namespace string // "" for a public pool
	Name      string
	State     ApplyState
}

// An ApplyError says which object of Apply was refused, and which of its
// fields. Its message is the refusal's.
type ApplyError struct {
	Index           int // in the list given
	Kind            string
	Namespace, Name string
	// Path is the field refused as a manifest names it, such as spec.cidr
	// or spec.subnets[1].gateway; "" for the object as a whole.
	Path string
	Err  error
}

func (e *ApplyError) Error() string { return e.Err.Error() }

// Unwrap gives the refusal, for errors.Is and errors.As.
func (e *ApplyError) Unwrap() error { return e.Err }

// Apply makes what a manifest describes, all or nothing: one refused object
// stores none. It creates the public pools and the VPCs (with their
// subnets) that do not exist, and leaves those that exist as they are when
// they match; what never changes (a pool's spec, a VPC's cidr, zone and
// uid, a subnet's cidr and gateway) is refused when it differs. A subnet
// missing from an existing VPC is added. A private pool is accepted when it
// is the one its VPC made, the VPC existing or created by the same call. A
// pool's labels are set as given. Apply never deletes: what exists and is
// not given stays.
//
// Public pools are applied first, then VPCs, then private pools; the answer
// follows the order of objects.
func (s *Service) Apply(ctx context.Context, actor auth.Actor, objects []ApplyObject) ([]Applied, error) {
	out := make([]Applied, len(objects))
	rows := make([]store.PoolRow, len(objects)) // of the public pools
	for i, o := range objects {
		out[i] = o.applied()
		var err error
		switch {
		case o.PublicPool != nil:
			if !actor.IsOperator() {
				err = forbidden("only operators create public pools")
			} else {
				rows[i], err = publicPoolRow(actor, *o.PublicPool)
			}
		case o.PrivatePool != nil:
			err = checkPrivatePool(actor, *o.PrivatePool)
		case o.VPC != nil:
			if errs := vpcApplyErrors(*o.VPC); len(errs) > 0 {
				err = errs[0]
			} else {
				err = mayCreateIn(actor, o.VPC.Namespace)
			}
		default:
			return nil, fmt.Errorf("ipam: object %d of Apply is empty", i)
		}
		if err != nil {
			return nil, applyRefusal(i, out[i], err)
		}
	}
	err := s.inTx(ctx, func(tx *store.Tx, undo *undoList) error {
		// The quota locks first, in one order, before any row
		// (docs/allocation.md, "Quotas").
		if err := store.LockQuotas(ctx, tx, vpcNamespaces(objects)...); err != nil {
			return err
		}
		for pass := range 3 {
			for i, o := range objects {
				if o.pass() != pass {
					continue
				}
				state, err := s.applyObject(ctx, tx, undo, actor, o, rows[i])
				if err != nil {
					return applyRefusal(i, out[i], err)
				}
				out[i].State = state
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pass is when Apply applies the object: public pools first, then VPCs
// (their uplinks are claimed from the public pools of their zone), then
// private pools (made by the VPCs).
func (o ApplyObject) pass() int {
	switch {
	case o.PublicPool != nil:
		return 0
	case o.VPC != nil:
		return 1
	}
	return 2
}

// applyObject applies o in tx; row is a public pool's, from publicPoolRow.
func (s *Service) applyObject(ctx context.Context, tx *store.Tx, undo *undoList, actor auth.Actor, o ApplyObject, row store.PoolRow) (ApplyState, error) {
	switch {
	case o.PublicPool != nil:
		return applyPublicPool(ctx, tx, actor, row)
	case o.VPC != nil:
		return s.applyVPC(ctx, tx, undo, actor, *o.VPC)
	}
	return applyPrivatePool(ctx, tx, actor, *o.PrivatePool)
}

// applied names the object, without a state yet.
func (o ApplyObject) applied() Applied {
	switch {
	case o.PublicPool != nil:
		return Applied{Kind: KindPool, Name: o.PublicPool.Name}
	case o.PrivatePool != nil:
		return Applied{Kind: KindPool, Namespace: o.PrivatePool.Namespace, Name: o.PrivatePool.Name}
	case o.VPC != nil:
		return Applied{Kind: KindVPC, Namespace: o.VPC.Namespace, Name: o.VPC.Name}
	}
	return Applied{}
}

// A fieldError is the refusal of one field, by its path in the document.
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string { return e.err.Error() }

func (e *fieldError) Unwrap() error { return e.err }

// at refuses the field path with err; nil stays nil.
func at(path string, err error) error {
	if err == nil {
		return nil
	}
	return &fieldError{path: path, err: err}
}

// applyRefusal says that the object i, named by a, was refused with err: at the
// path at gave, else at the field of an *refusal.InvalidError.
func applyRefusal(i int, a Applied, err error) *ApplyError {
	e := &ApplyError{Index: i, Kind: a.Kind, Namespace: a.Namespace, Name: a.Name, Err: err}
	var fe *fieldError
	var inv *refusal.InvalidError
	switch {
	case errors.As(err, &fe):
		e.Path, e.Err = fe.path, fe.err
	case errors.As(err, &inv):
		e.Path = documentPath(inv.Field)
	}
	return e
}

// documentPath is the path in a document of a field of the domain's
// inputs.
func documentPath(field string) string {
	switch {
	case field == "":
		return ""
	case field == "name" || field == "namespace" || field == "uid" || field == "labels" || strings.HasPrefix(field, "labels."):
		return "metadata." + field
	}
	return "spec." + field
}

// uuidRe is a UUID, as vpcs.uid holds them.
var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func checkUUID(field, s string) error {
	if !uuidRe.MatchString(s) {
		return invalid(field, "%s %s is not a UUID such as 5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b", field, describe(s))
	}
	return nil
}

// ValidateVPC checks a VPC as Apply does, without the database, and
// reports every mistake rather than the first, as ValidatePublicPool does.
// The field of a subnet's mistake is subnets[<index>].<field>.
func ValidateVPC(in ApplyVPCInput) error {
	return errors.Join(vpcApplyErrors(in)...)
}

// vpcApplyErrors returns the mistakes of in: those of its fields, and the
// first of each subnet.
func vpcApplyErrors(in ApplyVPCInput) []error {
	errs := vpcInputErrors(in.CreateVPCInput)
	if in.UID != "" {
		if err := checkUUID("uid", in.UID); err != nil {
			errs = append(errs, err)
		}
	}
	for i, sub := range in.Subnets {
		var inv *refusal.InvalidError
		if _, err := checkSubnetInput(sub); errors.As(err, &inv) {
			errs = append(errs, &refusal.InvalidError{Field: fmt.Sprintf("subnets[%d].%s", i, inv.Field), Message: inv.Message})
		} else if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// ValidatePrivatePool checks a private pool as Apply does, without the
// database, and reports every mistake: one owned by something that is no
// VPC's uid is refused with PrivatePoolRefusal. Whether a VPC made it is
// Apply's to say.
func ValidatePrivatePool(in PrivatePoolInput) error {
	return errors.Join(privatePoolErrors(in)...)
}

func privatePoolErrors(in PrivatePoolInput) []error {
	var errs []error
	if err := checkNamespace("namespace", in.Namespace); err != nil {
		errs = append(errs, err)
	}
	if err := checkName("name", in.Name); err != nil {
		errs = append(errs, err)
	}
	if _, err := parsePrefix("cidr", in.CIDR); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, labelErrors(in.Labels)...)
	if !uuidRe.MatchString(in.VPCUID) {
		errs = append(errs, conflict(PrivatePoolRefusal))
	}
	return errs
}

// checkPrivatePool checks what Apply can check of a private pool without
// the database.
func checkPrivatePool(actor auth.Actor, in PrivatePoolInput) error {
	if errs := privatePoolErrors(in); len(errs) > 0 {
		return errs[0]
	}
	return mayCreateIn(actor, in.Namespace)
}

// vpcNamespaces are the namespaces of the VPCs of objects, sorted, each
// once.
func vpcNamespaces(objects []ApplyObject) []string {
	var out []string
	for _, o := range objects {
		if o.VPC != nil {
			out = append(out, o.VPC.Namespace)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// applyPublicPool creates the public pool row (checked by publicPoolRow),
// or finds it stored with the same spec and sets its labels.
func applyPublicPool(ctx context.Context, tx *store.Tx, actor auth.Actor, row store.PoolRow) (ApplyState, error) {
	stored, err := createPublicPool(ctx, tx, actor, row)
	if err != nil {
		return "", err
	}
	if stored.UID == row.UID {
		return Created, nil
	}
	return setLabels(ctx, tx, actor, stored, row.Labels)
}

// applyPrivatePool accepts a private pool (checked by checkPrivatePool)
// that is the one its VPC made, and sets its labels.
func applyPrivatePool(ctx context.Context, tx *store.Tx, actor auth.Actor, in PrivatePoolInput) (ApplyState, error) {
	vpc, err := store.VPCByUID(ctx, tx, strings.ToLower(in.VPCUID))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", conflict(PrivatePoolRefusal)
	case err != nil:
		return "", err
	case vpc.Namespace != in.Namespace || candidates.PrivatePoolName(vpc.Name) != in.Name &&
		(!vpc.IPv6CIDR.IsValid() || candidates.PrivatePoolNameV6(vpc.Name) != in.Name):
		return "", conflict(PrivatePoolRefusal)
	}
	pool, err := store.Pool(ctx, tx, in.Namespace, in.Name)
	if err != nil {
		return "", err
	}
	if cidr, _ := netip.ParsePrefix(in.CIDR); pool.CIDR != cidr {
		return "", at("spec.cidr", conflict("private pool %s/%s has cidr %s, its VPC's; a pool's spec never changes", pool.Namespace, pool.Name, pool.CIDR))
	}
	return setLabels(ctx, tx, actor, pool, in.Labels)
}

// setLabels gives the stored pool the labels given, audited; unchanged when
// it has them already.
func setLabels(ctx context.Context, tx *store.Tx, actor auth.Actor, pool store.PoolRow, labels map[string]string) (ApplyState, error) {
	if maps.Equal(pool.Labels, labels) {
		return Unchanged, nil
	}
	after, err := store.SetPoolLabels(ctx, tx, pool.UID, labels)
	if err != nil {
		return "", err
	}
	return Configured, store.InsertAudit(ctx, tx, store.AuditEntry{
		Actor: actor.Name, Action: audit.SetLabels, Namespace: pool.Namespace, ObjectKind: audit.KindPool, ObjectName: pool.Name,
		Before: store.JSON(audit.PoolLabels{UID: pool.UID, Labels: pool.Labels}),
		After:  store.JSON(audit.PoolLabels{UID: after.UID, Labels: after.Labels}),
	})
}

// applyVPC creates the VPC in (checked by vpcApplyErrors) with its
// subnets, or finds it stored as in says and adds the subnets it lacks.
func (s *Service) applyVPC(ctx context.Context, tx *store.Tx, undo *undoList, actor auth.Actor, in ApplyVPCInput) (ApplyState, error) {
	name := in.Namespace + "/" + in.Name
	uid := strings.ToLower(in.UID)
	cidr, _ := netip.ParsePrefix(in.CIDR)
	state := Unchanged
	vpc, err := store.VPC(ctx, tx, in.Namespace, in.Name, true)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if uid == "" {
			uid = newUID()
		} else if other, err := store.VPCByUID(ctx, tx, uid); err == nil {
			return "", at("metadata.uid", conflict("uid %s is VPC %s/%s's; give another uid, or none", uid, other.Namespace, other.Name))
		} else if !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
		if vpc, err = s.createVPC(ctx, tx, undo, actor, in.CreateVPCInput, uid); err != nil {
			return "", err
		}
		state = Created
	case err != nil:
		return "", err
	case uid != "" && vpc.UID != uid:
		return "", at("metadata.uid", conflict("VPC %s has uid %s; a VPC's uid never changes: give that one, or none", name, vpc.UID))
	case vpc.CIDR != cidr:
		return "", at("spec.cidr", conflict("VPC %s has cidr %s; a VPC's cidr never changes: create another VPC", name, vpc.CIDR))
	case vpc.Zone != in.Zone:
		has := "has no zone"
		if vpc.Zone != "" {
			has = "is in zone " + vpc.Zone
		}
		return "", at("spec.zone", conflict("VPC %s %s; a VPC's zone never changes: create another VPC", name, has))
	default:
		if err := sameIPv6(vpc, in.CreateVPCInput); err != nil {
			return "", err
		}
	}
	for i, sub := range in.Subnets {
		created, err := s.applySubnet(ctx, tx, actor, vpc, sub, fmt.Sprintf("spec.subnets[%d]", i))
		if err != nil {
			return "", err
		}
		if created && state == Unchanged {
			state = Configured
		}
	}
	return state, nil
}

// applySubnet creates the subnet in of vpc, whose row tx has locked or
// created, or finds it stored with the same cidr and gateway; path is the
// subnet's in the document.
func (s *Service) applySubnet(ctx context.Context, tx *store.Tx, actor auth.Actor, vpc store.VPCRow, in CreateSubnetInput, path string) (created bool, err error) {
	row, err := store.Subnet(ctx, tx, vpc.UID, in.Name)
	if errors.Is(err, store.ErrNotFound) {
		in.Namespace, in.VPC = vpc.Namespace, vpc.Name
		_, err := s.createSubnet(ctx, tx, actor, vpc, in)
		var inv *refusal.InvalidError
		if errors.As(err, &inv) {
			return false, at(path+"."+inv.Field, err)
		}
		return err == nil, at(path, err)
	}
	if err != nil {
		return false, err
	}
	if cidr, _ := netip.ParsePrefix(in.CIDR); row.CIDR != cidr {
		return false, at(path+".cidr", conflict("subnet %s of VPC %s/%s has cidr %s; a subnet's cidr never changes: create another subnet", row.Name, vpc.Namespace, vpc.Name, row.CIDR))
	}
	if gw, _ := netip.ParseAddr(in.Gateway); in.Gateway != "" && row.Gateway != gw {
		return false, at(path+".gateway", conflict("subnet %s of VPC %s/%s has gateway %s; a subnet's gateway never changes: create another subnet", row.Name, vpc.Namespace, vpc.Name, row.Gateway))
	}
	if cidr, _ := netip.ParsePrefix(in.IPv6CIDR); in.IPv6CIDR != "" && row.IPv6CIDR != cidr ||
		in.IPv6PrefixLength != 0 && row.IPv6CIDR.Bits() != in.IPv6PrefixLength {
		return false, at(path+".ipv6Cidr", conflict("subnet %s of VPC %s/%s has IPv6 prefix %s; a subnet's prefixes never change: create another subnet", row.Name, vpc.Namespace, vpc.Name, describePrefix(row.IPv6CIDR)))
	}
	return false, nil
}

// sameIPv6 refuses in, a VPC as a manifest gives it, when vpc, stored,
// has another IPv6 prefix or addressing: they never change. A delegated
// prefix matches the length asked for.
func sameIPv6(vpc store.VPCRow, in CreateVPCInput) error {
	name := in.Namespace + "/" + in.Name
	cidr, _ := netip.ParsePrefix(in.IPv6CIDR)
	switch {
	case in.IPv6CIDR != "" && vpc.IPv6CIDR != cidr,
		in.IPv6PrefixLength != 0 && (!vpc.IPv6Delegated || vpc.IPv6CIDR.Bits() != in.IPv6PrefixLength),
		in.IPv6CIDR == "" && in.IPv6PrefixLength == 0 && vpc.IPv6CIDR.IsValid():
		return at("spec.ipv6Cidr", conflict("VPC %s has IPv6 prefix %s; a VPC's IPv6 prefix never changes: create another VPC", name, describePrefix(vpc.IPv6CIDR)))
	case in.IPv6Addressing != "" && in.IPv6Addressing != vpc.IPv6Addressing:
		return at("spec.ipv6Addressing", conflict("VPC %s has ipv6Addressing %s; it never changes: create another VPC", name, vpc.IPv6Addressing))
	}
	return nil
}

// describePrefix writes a prefix in a message, "none" for the zero one.
func describePrefix(p netip.Prefix) string {
	if !p.IsValid() {
		return "none"
	}
	return p.String()
}
