package schema

import (
	"reflect"
	"testing"
)

// TestDiffListsWhatApplyDid: Diff of a schema and the one Apply made of it
// lists what Apply said it did; from and to the empty schema, every kind
// and element is added, then removed.
func TestDiffListsWhatApplyDid(t *testing.T) {
	s := seedSchema(t)
	next, changes := mustApply(t, s, moreIDs(), generics([]string{"{name: Named, namespace: Base, attributes: [{name: label, kind: Text, optional: true}]}"},
		`{name: VLAN, namespace: Ipam, inherit_from: [BaseNamed], attributes: [{name: name, kind: Text, unique: true}]}`))
	if got := Diff(s, next); !reflect.DeepEqual(got, changes) {
		t.Errorf("Diff:\n%v\nwant what Apply did:\n%v", got, changes)
	}
	if got := Diff(next, next); len(got) != 0 {
		t.Errorf("Diff of a schema and itself = %v", got)
	}
	added, removed := Diff(Schema{}, s), Diff(s, Schema{})
	if len(added) == 0 || len(added) != len(removed) {
		t.Fatalf("from the empty schema %d changes, to it %d", len(added), len(removed))
	}
	for i := range added {
		if added[i].Op != Added || removed[i].Op != Removed || added[i].ID != removed[i].ID {
			t.Errorf("change %d: %v from the empty schema, %v to it", i, added[i], removed[i])
		}
	}
}
