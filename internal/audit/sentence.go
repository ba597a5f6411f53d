package audit

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A Sentence tells one change to people: its Actor, then Parts, which
// read as one sentence after the actor's name ("attached web-01/0 to
// subnet web: 10.42.1.7"); Fields are what an update changed, before →
// after; Details are more lines (the changes of a schema).
type Sentence struct {
	Actor   string
	Parts   []Part
	Fields  []Field
	Details []string
}

// A Part is words of a sentence, or the name of an object (Ref set): its
// display label, which a page links to the object's page.
type Part struct {
	Text string
	Ref  *Ref
}

// A Ref names an object as the audit log does: its kind, namespace and
// name (a subnet's "<vpc>/<subnet>", a number pool's or an object's id),
// and, for an object of a kind, the branch it was changed on.
type Ref struct {
	Kind, Namespace, Name string
	Branch                string
}

// A Field is a field an update changed: its name, and its value before
// and after ("" for none).
type Field struct {
	Name, Before, After string
}

// Text is the sentence after the actor's name.
func (s Sentence) Text() string {
	var b strings.Builder
	for _, p := range s.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// String writes the whole sentence on one line: the actor, the text, then
// the fields ("; note: a → b") and the details.
func (s Sentence) String() string {
	out := s.Actor + " " + s.Text()
	for _, f := range s.Fields {
		out += "; " + f.String()
	}
	for _, d := range s.Details {
		out += "; " + d
	}
	return out
}

// String writes the field as "name: before → after", a value none as "—".
func (f Field) String() string {
	return f.Name + ": " + orNone(f.Before) + " → " + orNone(f.After)
}

// orNone is v, or "—" for no value.
func orNone(v string) string {
	if v == "" {
		return "—"
	}
	return v
}

// maxDetails is how many lines of details a sentence lists.
const maxDetails = 10

// Describe tells the change e in a sentence, its objects by their names
// and display labels (never by an id, which only the Refs hold). An entry
// whose documents do not decode is told by its action, kind and name.
func Describe(e Entry) Sentence {
	return DescribeWith(e, nil)
}

// A Holder is an object that holds a number, as the reader knows it now:
// its kind and display label.
type Holder struct{ Kind, Label string }

// A HolderKey names an object that holds a number: the branch of the
// entry and the object's id.
type HolderKey struct{ Branch, ID string }

// HolderOf returns the key of the object that holds the number of e, and
// false when e is no number's allocation or release.
func HolderOf(e Entry) (key HolderKey, poolID string, ok bool) {
	before, after, err := e.Documents()
	if err != nil {
		return HolderKey{}, "", false
	}
	switch d := cmpOr(after, before).(type) {
	case NumberAllocation:
		return HolderKey{Branch: e.Branch, ID: d.Object}, d.PoolID, d.Object != ""
	case NumberRelease:
		return HolderKey{Branch: cmpString(d.AllocatedOn, e.Branch), ID: d.Object}, d.PoolID, d.Object != ""
	}
	return HolderKey{}, "", false
}

// DescribeWith is Describe, naming the holders of numbers that holders
// knows (HolderOf) by their labels, linked; the others stay unnamed, as
// Describe leaves them.
func DescribeWith(e Entry, holders map[HolderKey]Holder) Sentence {
	before, after, err := e.Documents()
	b := builder{holders: holders}
	if err == nil {
		b.describe(e, before, after)
	}
	if len(b.parts) == 0 {
		b = builder{}
		b.words(e.Action + " " + e.Kind + " " + e.Object())
	}
	return Sentence{Actor: e.Actor, Parts: b.parts, Fields: b.fields, Details: b.details}
}

// builder puts a sentence together.
type builder struct {
	parts   []Part
	fields  []Field
	details []string
	holders map[HolderKey]Holder
}

// holder adds " <words> <kind> <label>" when the holder of the number
// of e is known.
func (b *builder) holder(e Entry, words string) {
	key, _, ok := HolderOf(e)
	h, known := b.holders[key]
	if !ok || !known {
		return
	}
	b.words(" " + words + " " + h.Kind + " ")
	b.ref(h.Label, Ref{Kind: h.Kind, Name: key.ID, Branch: key.Branch})
}

// words adds words.
func (b *builder) words(ws ...string) {
	for _, w := range ws {
		if n := len(b.parts); n > 0 && b.parts[n-1].Ref == nil {
			b.parts[n-1].Text += w
			continue
		}
		b.parts = append(b.parts, Part{Text: w})
	}
}

// ref adds the label of the object r.
func (b *builder) ref(label string, r Ref) {
	b.parts = append(b.parts, Part{Text: label, Ref: &r})
}

// diff adds the fields whose values differ between before and after, by
// name.
func (b *builder) diff(before, after []kv) {
	old := map[string]kv{}
	for _, f := range before {
		old[f.k] = f
	}
	seen := map[string]bool{}
	for _, f := range after {
		seen[f.k] = true
		o := old[f.k]
		switch {
		case o.key() == f.key():
		case o.v == f.v:
			// The same words for other values: peers of one number.
			b.fields = append(b.fields, Field{Name: f.k, Before: o.v, After: f.other})
		default:
			b.fields = append(b.fields, Field{Name: f.k, Before: o.v, After: f.v})
		}
	}
	for _, f := range before {
		if !seen[f.k] {
			b.fields = append(b.fields, Field{Name: f.k, Before: f.v})
		}
	}
	slices.SortStableFunc(b.fields, func(x, y Field) int { return strings.Compare(x.Name, y.Name) })
}

// kv is a field's name and value as told; when the value told does not
// tell values apart (the peers of a relationship, counted), cmp is what
// does and other tells another value of the same words.
type kv struct{ k, v, cmp, other string }

// key is what tells the field's values apart.
func (f kv) key() string {
	if f.cmp != "" {
		return f.cmp
	}
	return f.v
}

// describe writes the sentence of e, whose documents are before and after.
func (b *builder) describe(e Entry, before, after Payload) {
	d := cmpOr(after, before)
	if _, deletion := d.(ObjectDeletion); deletion {
		d = before
	}
	switch d := d.(type) {
	case Allocation:
		b.allocation(e, before, after, d)
	case Pool:
		b.pool(e, before, after, d)
	case PoolLabels:
		b.words("set the labels of pool ")
		b.ref(e.Name, Ref{Kind: KindPool, Namespace: e.Namespace, Name: e.Name})
		old, _ := before.(PoolLabels)
		b.diff(labels(old.Labels), labels(d.Labels))
	case VPC:
		b.vpc(e, d)
	case Subnet:
		b.subnet(e, d)
	case FloatingIP:
		b.floatingIP(e, d)
	case Quota:
		b.quota(e, before, d)
	case Branch:
		b.branch(e, d)
	case Integration:
		b.integration(e, d)
	case SchemaChanges:
		b.words("loaded a schema on branch ")
		b.ref(e.Name, Ref{Kind: KindBranch, Name: e.Name})
		b.words(": " + count(len(d), "change", "changes"))
		b.list(schemaLines(d))
	case Object:
		b.object(e, before, after, d)
	case Resolution:
		b.resolution(e, d)
	case NumberPool:
		b.numberPool(e, before, after, d)
	case NumberAllocation:
		b.words("allocated " + strconv.FormatInt(d.Number, 10) + " from number pool ")
		b.ref(d.Pool, Ref{Kind: KindNumberPool, Name: d.PoolID})
		b.holder(e, "to")
		b.onBranch(e.Branch)
	case NumberRelease:
		b.words("released " + strconv.FormatInt(d.Number, 10) + " of number pool ")
		b.ref(d.Pool, Ref{Kind: KindNumberPool, Name: d.PoolID})
		b.holder(e, "held by")
		b.onBranch(e.Branch)
	case User:
		switch e.Action {
		case Create:
			b.words("added user " + d.Name + ", " + role(d))
		case SetPassword:
			b.words("set the password of user " + e.Name)
		case EndSessions:
			b.words("ended the console sessions of user " + e.Name)
		}
	case Token:
		b.words("created an API token for " + e.Name)
	case Tokens:
		b.words("revoked " + count(len(d), "API token", "API tokens") + " of " + e.Name)
	case nil:
		if e.Kind == KindClusterSecret && e.Action == Rotate {
			b.words("rotated the cluster secret")
		}
	}
}

// cmpOr returns after, or before when there is no after.
func cmpOr(after, before Payload) Payload {
	if after != nil {
		return after
	}
	return before
}

// allocation tells a claim, a release or a rename of an address.
func (b *builder) allocation(e Entry, before, after Payload, a Allocation) {
	if e.Action == Rename {
		old, _ := before.(Allocation)
		b.words("renamed " + old.Owner.Name + " to " + a.Owner.Name)
		if a.Address != "" {
			b.words(": " + a.Address)
		} else {
			b.words(" (" + e.Name + ")")
		}
		return
	}
	claim := e.Action == Allocate
	subnet := a.Subnet
	if a.Owner.Kind == "Node" {
		// A host's address is named after its subnet.
		subnet = cmpString(subnet, a.Owner.Name)
	}
	pool := func() { b.ref(a.Pool, Ref{Kind: KindPool, Namespace: e.Namespace, Name: a.Pool}) }
	// where names the subnet, else the VPC of a private pool, else the pool.
	where := func() {
		vpc, private := strings.CutPrefix(a.Pool, "vpc-")
		switch {
		case e.Namespace != "" && private && subnet != "":
			b.words("subnet ")
			b.ref(subnet, Ref{Kind: KindSubnet, Namespace: e.Namespace, Name: vpc + "/" + subnet})
		case e.Namespace != "" && private:
			b.words("VPC ")
			b.ref(vpc, Ref{Kind: KindVPC, Namespace: e.Namespace, Name: vpc})
		default:
			b.words("pool ")
			pool()
		}
	}
	switch {
	case a.Owner.Kind == "VirtualMachine" && claim:
		b.words("attached " + a.Owner.Name + " to ")
		where()
		b.words(": " + a.Address)
	case a.Owner.Kind == "VirtualMachine":
		b.words("detached " + a.Owner.Name + " from ")
		where()
		b.words(": " + a.Address)
	case a.Owner.Kind == "Node" && claim:
		b.words("gave a node an address in ")
		where()
		b.words(": " + a.Address)
	case a.Owner.Kind == "Node":
		b.words("released the node address " + a.Address + " of ")
		where()
	case a.Owner.Kind == "VPC" && claim:
		b.words("claimed " + a.Address + " from pool ")
		pool()
		b.words(" as a router uplink of " + a.OwnerNamespace)
	case a.Owner.Kind == "VPC":
		b.words("released " + a.Address + ", a router uplink of " + a.OwnerNamespace + ", to pool ")
		pool()
	case a.Owner.Kind == "FloatingIP" && claim:
		b.words("claimed " + a.Address + " from pool ")
		pool()
		b.words(" for floating IP " + a.Owner.Name + inOther(e.Namespace, a.OwnerNamespace))
	case a.Owner.Kind == "FloatingIP":
		b.words("released " + a.Address + " of floating IP " + a.Owner.Name + inOther(e.Namespace, a.OwnerNamespace) + " to pool ")
		pool()
	case claim:
		b.words("allocated " + a.Address + " from pool ")
		pool()
		b.words(" to " + a.Owner.Kind + " " + a.Owner.Name)
	default:
		b.words("released " + a.Address + " of " + a.Owner.Kind + " " + a.Owner.Name + " to pool ")
		pool()
	}
}

// inOther is " in namespace" when the owner's namespace is not the
// entry's.
func inOther(entryNamespace, ownerNamespace string) string {
	if ownerNamespace == "" || ownerNamespace == entryNamespace {
		return ""
	}
	return " in " + ownerNamespace
}

// pool tells a pool's creation, change or deletion.
func (b *builder) pool(e Entry, before, after Payload, p Pool) {
	kind := p.Kind + " pool "
	switch e.Action {
	case Create:
		b.words("created " + kind)
		b.ref(p.Name, Ref{Kind: KindPool, Namespace: p.Namespace, Name: p.Name})
		b.words(": " + poolSpec(p))
	case Delete:
		b.words("deleted " + kind + p.Name + ": " + p.CIDR)
	default:
		b.words("changed " + kind)
		b.ref(p.Name, Ref{Kind: KindPool, Namespace: p.Namespace, Name: p.Name})
		old, _ := before.(Pool)
		b.diff(poolFields(old), poolFields(p))
	}
}

// poolSpec writes a pool's prefix, gateway, excludes and zone.
func poolSpec(p Pool) string {
	parts := []string{p.CIDR}
	if p.Gateway != "" {
		parts = append(parts, "gateway "+p.Gateway)
	}
	if len(p.Exclude) > 0 {
		parts = append(parts, "excluding "+strings.Join(p.Exclude, ", "))
	}
	if p.Zone != "" {
		parts = append(parts, "zone "+p.Zone)
	}
	return strings.Join(parts, ", ")
}

// poolFields are the fields of a pool an update may change.
func poolFields(p Pool) []kv {
	return append([]kv{{k: "cidr", v: p.CIDR}, {k: "gateway", v: p.Gateway}, {k: "exclude", v: strings.Join(p.Exclude, ", ")}, {k: "zone", v: p.Zone}}, labels(p.Labels)...)
}

// labels are labels as fields "label <key>".
func labels(m map[string]string) []kv {
	var out []kv
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, kv{k: "label " + k, v: m[k]})
	}
	return out
}

// vpc tells a VPC's creation or deletion.
func (b *builder) vpc(e Entry, v VPC) {
	if e.Action == Delete {
		b.words("deleted VPC " + e.Name + ": " + v.CIDR)
		return
	}
	b.words("created VPC ")
	b.ref(e.Name, Ref{Kind: KindVPC, Namespace: e.Namespace, Name: e.Name})
	b.words(": " + v.CIDR)
	if v.Zone != "" {
		b.words(", zone " + v.Zone)
	}
	if v.Router != "" {
		b.words(", router uplink " + v.Router)
	}
}

// subnet tells a subnet's creation or deletion.
func (b *builder) subnet(e Entry, s Subnet) {
	vpc, name, _ := strings.Cut(e.Name, "/")
	vpcRef := Ref{Kind: KindVPC, Namespace: e.Namespace, Name: vpc}
	if e.Action == Delete {
		b.words("deleted subnet " + name + " of VPC ")
		b.ref(vpc, vpcRef)
		b.words(": " + s.CIDR)
		return
	}
	b.words("created subnet ")
	b.ref(name, Ref{Kind: KindSubnet, Namespace: e.Namespace, Name: e.Name})
	b.words(" in VPC ")
	b.ref(vpc, vpcRef)
	b.words(": " + s.CIDR + ", gateway " + s.Gateway)
}

// floatingIP tells a floating IP's claim or release.
func (b *builder) floatingIP(e Entry, f FloatingIP) {
	pool := Ref{Kind: KindPool, Name: f.Pool}
	if e.Action == Delete {
		b.words("released floating IP " + e.Name + ": " + f.Address + " to pool ")
	} else {
		b.words("claimed floating IP " + e.Name + ": " + f.Address + " from pool ")
	}
	b.ref(f.Pool, pool)
}

// quotaKinds are the kinds of quota in the order they are told, with their
// words for one and for more.
var quotaKinds = []struct{ key, one, many string }{
	{"vpcs", "VPC", "VPCs"}, {"subnets", "subnet", "subnets"}, {"floating_ips", "floating IP", "floating IPs"}, {"addresses", "address", "addresses"},
}

// quota tells a quota set, changed or unset.
func (b *builder) quota(e Entry, before Payload, q Quota) {
	ref := Ref{Kind: KindQuota, Name: q.Pattern}
	switch e.Action {
	case Create:
		b.words("set a quota on ")
		b.ref(q.Pattern, ref)
		b.words(": " + limits(q))
	case Delete:
		b.words("unset the quota on " + q.Pattern + ": " + limits(q))
	default:
		b.words("changed the quota on ")
		b.ref(q.Pattern, ref)
		old, _ := before.(Quota)
		b.diff(quotaFields(old), quotaFields(q))
	}
}

// limits writes a quota's limits: "3 VPCs, 5 subnets".
func limits(q Quota) string {
	var parts []string
	for _, k := range quotaKinds {
		if n, ok := q.Limits[k.key]; ok {
			parts = append(parts, count(int(n), k.one, k.many))
		}
	}
	return strings.Join(parts, ", ")
}

// quotaFields are a quota's limits as fields.
func quotaFields(q Quota) []kv {
	var out []kv
	for _, k := range quotaKinds {
		if n, ok := q.Limits[k.key]; ok {
			out = append(out, kv{k: k.many, v: strconv.FormatInt(n, 10)})
		}
	}
	return out
}

// branch tells a branch's creation or deletion.
func (b *builder) branch(e Entry, br Branch) {
	if e.Action == Delete {
		b.words("deleted branch " + br.Name)
		return
	}
	b.words("created branch ")
	b.ref(br.Name, Ref{Kind: KindBranch, Name: br.Name})
}

// integration tells a merge or a rebase.
func (b *builder) integration(e Entry, in Integration) {
	name := cmpString(in.Branch, e.Name)
	if e.Action == Merge {
		b.words("merged branch ")
		b.ref(name, Ref{Kind: KindBranch, Name: name})
		b.words(" into main")
	} else {
		b.words("rebased branch ")
		b.ref(name, Ref{Kind: KindBranch, Name: name})
		b.words(" on main")
	}
	b.words(": " + count(len(in.Objects), "object", "objects") + ", " + count(len(in.Schema), "schema change", "schema changes"))
	b.list(schemaLines(in.Schema))
}

// cmpString returns a, or b when a is empty.
func cmpString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// list adds lines to the details, at most maxDetails and how many more.
func (b *builder) list(lines []string) {
	for i, l := range lines {
		if i == maxDetails {
			b.details = append(b.details, fmt.Sprintf("and %d more", len(lines)-maxDetails))
			break
		}
		b.details = append(b.details, l)
	}
}

// schemaLines are the lines of a schema's changes without the elements'
// ids ("added attribute IpamVLAN.note (id …): optional false → true").
func schemaLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if at := strings.Index(l, " (id "); at >= 0 {
			if end := strings.IndexByte(l[at:], ')'); end >= 0 {
				l = l[:at] + l[at+end+1:]
			}
		}
		out[i] = l
	}
	return out
}

// object tells an object's creation, change or deletion, by its display
// label.
func (b *builder) object(e Entry, before, after Payload, o Object) {
	label := cmpString(o.DisplayLabel, e.Name)
	ref := Ref{Kind: e.Kind, Name: e.Name, Branch: e.Branch}
	switch e.Action {
	case Create:
		b.words("created " + e.Kind + " ")
		b.ref(label, ref)
	case Delete:
		b.words("deleted " + e.Kind + " " + label)
		b.onBranch(e.Branch)
		if del, ok := after.(ObjectDeletion); ok && len(del.RelationshipsCleared) > 0 {
			b.words(", removing it from the relationships of " + count(len(del.RelationshipsCleared), "object", "objects"))
		}
		return
	default:
		b.words("changed " + e.Kind + " ")
		b.ref(label, ref)
		old, _ := before.(Object)
		b.diff(objectFields(old), objectFields(o))
	}
	b.onBranch(e.Branch)
}

// resolution tells the side of a merge's conflict an operator chose, and
// the field's value that side holds (Main and Branch hold a field's value
// as JSON; of a whole object, its data or "deleted", which is not told).
func (b *builder) resolution(e Entry, r Resolution) {
	b.words("chose " + r.Side + "'s side of " + e.Kind + " ")
	b.ref(cmpString(r.DisplayLabel, e.Name), Ref{Kind: e.Kind, Name: e.Name, Branch: e.Branch})
	if r.Field != "" {
		b.words(" (" + r.Field + ")")
	}
	b.words(" for the merge of branch ")
	b.ref(e.Branch, Ref{Kind: KindBranch, Name: e.Branch})
	kept := r.Main
	if r.Side == "branch" {
		kept = r.Branch
	}
	switch {
	case r.Field == "":
	case kept == nil:
		b.words(": —")
	default:
		var v any
		if json.Unmarshal([]byte(*kept), &v) != nil {
			v = *kept
		}
		b.words(": " + value(v))
	}
}

// onBranch adds " on branch <name>" when a branch is named.
func (b *builder) onBranch(name string) {
	if name == "" {
		return
	}
	b.words(" on branch ")
	b.ref(name, Ref{Kind: KindBranch, Name: name})
}

// objectFields are an object's attributes and relationships as fields:
// values as JSON writes them (a string bare), peers counted (their ids are
// no names), the display label first.
func objectFields(o Object) []kv {
	out := []kv{{k: "display label", v: o.DisplayLabel}}
	for _, k := range slices.Sorted(maps.Keys(o.Attributes)) {
		out = append(out, kv{k: k, v: value(o.Attributes[k])})
	}
	for _, k := range slices.Sorted(maps.Keys(o.Relationships)) {
		peers := o.Relationships[k]
		f := kv{k: k, v: count(len(peers), "object", "objects"), cmp: strings.Join(peers, " "), other: "another object"}
		if len(peers) != 1 {
			f.other = strconv.Itoa(len(peers)) + " other objects"
		}
		out = append(out, f)
	}
	return out
}

// value writes an attribute's value: a string as it is, anything else as
// JSON.
func value(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// numberPool tells a number pool's creation, change or deletion.
func (b *builder) numberPool(e Entry, before, after Payload, p NumberPool) {
	ref := Ref{Kind: KindNumberPool, Name: p.ID}
	switch e.Action {
	case Create:
		b.words("created number pool ")
		b.ref(p.Name, ref)
		b.words(" of " + p.Node + "." + p.NodeAttribute + ": " + ranges(p.Ranges))
		if len(p.AllocationScope) > 0 {
			names := make([]string, len(p.AllocationScope))
			for i, s := range p.AllocationScope {
				names[i] = s.Name
			}
			b.words(", per " + strings.Join(names, " and "))
		}
	case Delete:
		b.words("deleted number pool " + p.Name + ": " + ranges(p.Ranges))
	default:
		b.words("changed number pool ")
		b.ref(p.Name, ref)
		old, _ := before.(NumberPool)
		b.diff(numberPoolFields(old), numberPoolFields(p))
	}
}

// ranges writes a number pool's ranges: "100-199, 300-399 (weight 2)".
func ranges(rs []NumberRange) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = strconv.FormatInt(r.Start, 10) + "-" + strconv.FormatInt(r.End, 10)
		if r.Weight != 1 {
			parts[i] += " (weight " + strconv.Itoa(r.Weight) + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// numberPoolFields are the fields of a number pool an update may change.
func numberPoolFields(p NumberPool) []kv {
	return []kv{{k: "name", v: p.Name}, {k: "description", v: p.Description}, {k: "ranges", v: ranges(p.Ranges)}}
}

// role writes a user's role: "operator", "tenant of acme/*".
func role(u User) string {
	if len(u.Namespaces) == 0 {
		return u.Role
	}
	return u.Role + " of " + strings.Join(u.Namespaces, ", ")
}

// count writes n with its noun: "1 change", "3 changes".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Label is the name people know the object of e by: an object's display
// label, a number pool's name (its entries are named by it, but it may
// change), or the entry's name.
func Label(e Entry) string {
	before, after, err := e.Documents()
	if err != nil {
		return e.Name
	}
	switch d := cmpOr(after, before).(type) {
	case ObjectDeletion:
		if o, ok := before.(Object); ok && o.DisplayLabel != "" {
			return o.DisplayLabel
		}
	case Object:
		if d.DisplayLabel != "" {
			return d.DisplayLabel
		}
	case NumberPool:
		return d.Name
	case NumberAllocation:
		return d.Pool
	case NumberRelease:
		return d.Pool
	}
	return e.Name
}
