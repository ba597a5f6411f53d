package branch

import (
	"context"
	"errors"
	"testing"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/schema/schematest"
	"pivirt.hu/ipam/internal/store"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var (
	operator = auth.Actor{Name: "op", Role: auth.Operator}
	acme     = auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
)

// newService returns a service on a fresh database, the database and its
// URL.
func newService(t testing.TB) (*Service, *store.DB, string) {
	t.Helper()
	url := pgtest.NewURL(t)
	svc, db := openService(t, url)
	return svc, db, url
}

// openService opens another service (as another process would) on url.
func openService(t testing.TB, url string) (*Service, *store.DB) {
	t.Helper()
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(context.Background(), Config{DB: db, URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	return svc, db
}

// file parses a schema file.
func file(t testing.TB, text string) schema.File {
	t.Helper()
	f, err := schema.Parse("test.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// load loads a schema file on the branch.
func load(t testing.TB, svc *Service, branch, text string) schema.Changes {
	t.Helper()
	changes, err := svc.LoadSchema(t.Context(), operator, branch, file(t, text))
	if err != nil {
		t.Fatalf("LoadSchema(%s): %v", branch, err)
	}
	return changes
}

// wantRefusal fails unless err is a refusal wrapping want whose message is
// msg (when not empty), and returns the message.
func wantRefusal(t testing.TB, err, want error, msg string) string {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	if msg != "" && err.Error() != msg {
		t.Fatalf("err = %q, want %q", err.Error(), msg)
	}
	return err.Error()
}

// vlans is the example schema with a node of its generic.
const vlans = schematest.ExampleWithInterface

// create creates an object, failing the test on an error.
func create(t testing.TB, svc *Service, branch, kind string, attrs map[string]any, rels map[string][]string) Object {
	t.Helper()
	o, err := svc.CreateObject(t.Context(), operator, branch, kind, ObjectInput{Attributes: attrs, Relationships: rels})
	if err != nil {
		t.Fatalf("CreateObject(%s, %s, %v): %v", branch, kind, attrs, err)
	}
	return o
}

// site creates a site called name.
func site(t testing.TB, svc *Service, branch, name string) Object {
	t.Helper()
	return create(t, svc, branch, "LocationSite", map[string]any{"name": name}, nil)
}

// vlan creates a VLAN of the site.
func vlan(t testing.TB, svc *Service, branch, name string, id int, site string) Object {
	t.Helper()
	return create(t, svc, branch, "IpamVLAN", map[string]any{"name": name, "vlan_id": id}, map[string][]string{"site": {site}})
}
