package audit

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"
)

// An Entry is one entry of the audit log: who, when, what, before and
// after.
type Entry struct {
	ID     int64
	At     time.Time
	Actor  string
	Action string
	// Namespace, Kind and Name name the object changed; Namespace is
	// empty in the cluster scope.
	Namespace, Kind, Name string
	// Before and After are the object's documents, of the types its Shape
	// gives: Before is nil when the object is new, After when it is gone.
	Before, After json.RawMessage
	// Branch is the branch of a change of branches, schemas, objects of
	// kinds and numbers; "" for the IP half, which has no branches.
	Branch string
}

// Object names what the entry changed: "namespace/name", or the name
// alone in the cluster scope.
func (e Entry) Object() string {
	if e.Namespace == "" {
		return e.Name
	}
	return e.Namespace + "/" + e.Name
}

// A Shape is the types of the documents of one kind of change: the zero
// value of the type of its before and of its after, nil for a document it
// never has. A document of the type may also be absent (an object's
// deletion has an ObjectDeletion only when it cleared relationships).
type Shape struct {
	Before, After Payload
}

// change is a kind of change: a kind of object and an action.
type change struct{ kind, action string }

// shapes are the kinds of change of the audit log, but those of objects of
// kinds (objectShapes).
var shapes = map[change]Shape{
	{KindAllocation, Allocate}: {After: Allocation{}},
	{KindAllocation, Release}:  {Before: Allocation{}},
	{KindAllocation, Rename}:   {Before: Allocation{}, After: Allocation{}},

	{KindPool, Create}:    {After: Pool{}},
	{KindPool, Update}:    {Before: Pool{}, After: Pool{}},
	{KindPool, Delete}:    {Before: Pool{}},
	{KindPool, SetLabels}: {Before: PoolLabels{}, After: PoolLabels{}},

	{KindVPC, Create}:        {After: VPC{}},
	{KindVPC, Delete}:        {Before: VPC{}},
	{KindSubnet, Create}:     {After: Subnet{}},
	{KindSubnet, Delete}:     {Before: Subnet{}},
	{KindFloatingIP, Create}: {After: FloatingIP{}},
	{KindFloatingIP, Delete}: {Before: FloatingIP{}},

	{KindQuota, Create}: {After: Quota{}},
	{KindQuota, Update}: {Before: Quota{}, After: Quota{}},
	{KindQuota, Delete}: {Before: Quota{}},

	{KindBranch, Create}: {After: Branch{}},
	{KindBranch, Delete}: {Before: Branch{}},
	{KindBranch, Merge}:  {After: Integration{}},
	{KindBranch, Rebase}: {After: Integration{}},
	{KindSchema, Load}:   {After: SchemaChanges{}},

	{KindNumberPool, Create}:   {After: NumberPool{}},
	{KindNumberPool, Update}:   {Before: NumberPool{}, After: NumberPool{}},
	{KindNumberPool, Delete}:   {Before: NumberPool{}},
	{KindNumberPool, Allocate}: {After: NumberAllocation{}},
	{KindNumberPool, Release}:  {Before: NumberRelease{}},

	{KindUser, Create}:      {After: User{}},
	{KindUser, SetPassword}: {Before: User{}, After: User{}},
	{KindUser, EndSessions}: {Before: User{}, After: User{}},
	{KindToken, Create}:     {After: Token{}},
	{KindToken, Revoke}:     {Before: Tokens{}},

	{KindClusterSecret, Rotate}: {},
}

// objectShapes are the changes of objects of the kinds of a schema.
var objectShapes = map[string]Shape{
	Create:  {After: Object{}},
	Update:  {Before: Object{}, After: Object{}},
	Delete:  {Before: Object{}, After: ObjectDeletion{}},
	Resolve: {After: Resolution{}},
}

// builtIn holds the kinds of shapes.
var builtIn = func() map[string]bool {
	m := map[string]bool{}
	for c := range shapes {
		m[c.kind] = true
	}
	return m
}()

// IsObjectKind reports whether kind is a kind of a schema's objects
// rather than one of the built-in kinds of this package.
func IsObjectKind(kind string) bool { return kind != "" && !builtIn[kind] }

// ShapeOf returns the shape of the change of action on an object of kind;
// false for a change the audit log does not record.
func ShapeOf(kind, action string) (Shape, bool) {
	if IsObjectKind(kind) {
		s, ok := objectShapes[action]
		return s, ok
	}
	s, ok := shapes[change{kind, action}]
	return s, ok
}

// Documents returns e's before and after, each decoded as the type its
// shape gives (nil for none). Fields the type does not know are ignored,
// so that an entry a later version wrote still reads; a document that
// does not fit its type, or a change of no known shape, is an error.
func (e Entry) Documents() (before, after Payload, err error) {
	shape, ok := ShapeOf(e.Kind, e.Action)
	if !ok {
		return nil, nil, fmt.Errorf("audit: no change %s of %s is known", e.Action, e.Kind)
	}
	if before, err = decode(e.Before, shape.Before); err != nil {
		return nil, nil, fmt.Errorf("audit: the before of %s %s %s: %w", e.Action, e.Kind, e.Name, err)
	}
	if after, err = decode(e.After, shape.After); err != nil {
		return nil, nil, fmt.Errorf("audit: the after of %s %s %s: %w", e.Action, e.Kind, e.Name, err)
	}
	return before, after, nil
}

// decode reads raw as the type of proto: nil when raw is absent or null,
// an error when proto is nil (the change has no such document) or raw
// does not fit.
func decode(raw json.RawMessage, proto Payload) (Payload, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if proto == nil {
		return nil, fmt.Errorf("a document where the change has none")
	}
	v := reflect.New(reflect.TypeOf(proto))
	if err := json.Unmarshal(raw, v.Interface()); err != nil {
		return nil, err
	}
	return v.Elem().Interface().(Payload), nil
}

// Kinds are the built-in kinds of objects whose changes the audit log
// records, sorted; objects of kinds have their kind's name besides.
func Kinds() []string {
	return slices.Sorted(maps.Keys(builtIn))
}

// Actions are the actions the audit log records, sorted.
func Actions() []string {
	set := map[string]bool{}
	for c := range shapes {
		set[c.action] = true
	}
	for a := range objectShapes {
		set[a] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// kindWords are the built-in kinds in words.
var kindWords = map[string]string{
	KindAllocation: "address", KindPool: "pool", KindVPC: "VPC", KindSubnet: "subnet", KindFloatingIP: "floating IP",
	KindQuota: "quota", KindBranch: "branch", KindSchema: "schema", KindNumberPool: "number pool", KindUser: "user",
	KindToken: "API token", KindClusterSecret: "cluster secret",
}

// KindWords names the kind in words: "address" for IPAllocation; a kind
// of objects by its name.
func KindWords(kind string) string {
	if w, ok := kindWords[kind]; ok {
		return w
	}
	return kind
}
