package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/internal/schema/schematest"
	"pivirt.hu/ipam/internal/store"
)

// auditLine is one entry as ipam audit prints it.
var auditLine = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) +(\S+) +(\S+) +(\S+) +(\S+) +(\S+)(?: +(.*))?$`)

// TestAuditCommand makes changes through the services and prints them
// back with ipam audit and its filters.
func TestAuditCommand(t *testing.T) {
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc, err := ipam.New(t.Context(), ipam.Config{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	ctx := t.Context()
	op := auth.Actor{Name: "op", Role: auth.Operator}
	acme := auth.Actor{Name: "acme", Role: auth.Tenant, Namespaces: []string{"acme/*"}}
	corp := auth.Actor{Name: "corp", Role: auth.Tenant, Namespaces: []string{"acme-corp/*"}}
	if _, err := svc.CreatePublicPool(ctx, op, ipam.CreatePublicPoolInput{Name: "public-zone-a", CIDR: "203.0.113.0/24", Gateway: "203.0.113.1", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	// The pool is two days old.
	if _, err := db.ExecContext(ctx, `UPDATE audit_log SET at = now() - interval '2 days'`); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVPC(ctx, acme, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateVPC(ctx, corp, ipam.CreateVPCInput{Namespace: "acme-corp/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteVPC(ctx, corp, "acme-corp/prod", "main"); err != nil {
		t.Fatal(err)
	}
	if err := auth.NewService(db).AddUser(ctx, op, "alice", auth.Tenant, []string{"acme/*"}, "a long enough secret"); err != nil {
		t.Fatal(err)
	}

	// Each line: time, actor, branch (- for all of these), action, kind,
	// object, and the change in words.
	all := [][5]string{
		{"op", "create", "IPAMPool", "public-zone-a", "created public pool public-zone-a: 203.0.113.0/24, gateway 203.0.113.1, zone zone-a"},
		{"acme", "allocate", "IPAllocation", "public-zone-a-203-0-113-2", "claimed 203.0.113.2 from pool public-zone-a as a router uplink of acme/prod"},
		{"acme", "create", "VPC", "acme/prod/main", "created VPC main: 10.42.0.0/16, zone zone-a, router uplink 203.0.113.2"},
		{"corp", "create", "VPC", "acme-corp/prod/main", "created VPC main: 10.42.0.0/16"},
		{"corp", "delete", "VPC", "acme-corp/prod/main", "deleted VPC main: 10.42.0.0/16"},
		{"corp", "delete", "IPAMPool", "acme-corp/prod/vpc-main", "deleted private pool vpc-main: 10.42.0.0/16"},
		{"op", "create", "User", "alice", "added user alice, tenant of acme/*"},
	}
	tests := []struct {
		name string
		args []string
		want [][5]string
	}{
		{"everything", nil, all},
		{"a namespace", []string{"--namespace", "acme/prod"}, [][5]string{all[2]}},
		{"a pattern", []string{"-n", "acme/*"}, [][5]string{all[2]}},
		{"another pattern", []string{"--namespace=acme-corp/*"}, all[3:6]},
		{"the newest two", []string{"--limit", "2"}, all[5:]},
		{"no limit", []string{"--limit", "0"}, all},
		{"since a day", []string{"--since", "24h"}, all[1:]},
		{"since days", []string{"--since", "3d"}, all},
		{"since a time", []string{"--since", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}, all[1:]},
		{"since a date to come", []string{"--since", "2999-01-01"}, nil},
		{"since, in a namespace, the newest one", []string{"--since", "1h", "--namespace", "acme-corp/prod", "--limit", "1"}, all[5:6]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRun(t, "", nil, append([]string{"audit", "--database-url", url}, tt.args...)...)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if out == "" {
				lines = nil
			}
			if len(lines) != len(tt.want) {
				t.Fatalf("ipam audit %s printed %d lines, want %d:\n%s", strings.Join(tt.args, " "), len(lines), len(tt.want), out)
			}
			var last time.Time
			for i, line := range lines {
				m := auditLine.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("line %q is not: time actor branch action kind object change", line)
				}
				at, err := time.Parse(time.RFC3339, m[1])
				if err != nil || at.Before(last) || time.Since(at) > 49*time.Hour {
					t.Errorf("line %q: time %s out of order or out of range (%v)", line, m[1], err)
				}
				last = at
				w := tt.want[i]
				if m[2] != w[0] || m[3] != "-" || m[4] != w[1] || m[5] != w[2] || m[6] != w[3] || m[7] != w[4] {
					t.Errorf("line %d = %q, want %s - %s %s %s %s", i, line, w[0], w[1], w[2], w[3], w[4])
				}
			}
		})
	}
}

func TestAuditCommandLine(t *testing.T) {
	url := pgtest.NewURL(t)
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{[]string{"audit", "--since", "yesterday"}, 2, "", `--since "yesterday" is neither a duration`},
		{[]string{"audit", "--since", "-2h"}, 2, "", "--since -2h is negative"},
		{[]string{"audit", "--since", "99999999999d"}, 2, "", "is neither a duration"},
		{[]string{"audit", "--limit", "-1"}, 2, "", "--limit must be 0 (all) or more, got -1"},
		{[]string{"audit", "--limit", "many"}, 2, "", `invalid value "many" for flag -limit`},
		{[]string{"audit", "everything"}, 2, "", `audit takes no arguments, got ["everything"]`},
		{[]string{"audit", "-h"}, 0, "", "--since DURATION|TIME"},
		{[]string{"audit", "--namespace", "'; DROP TABLE audit_log; --", "--database-url", url}, 0, "", ""},
		{[]string{"help"}, 0, "ipam audit [--since DURATION|TIME] [--namespace NS] [--limit N]", ""},
	}
	for _, tt := range tests {
		code, stdout, stderr := runWithStdin(t, "", nil, tt.args...)
		name := "ipam " + strings.Join(tt.args, " ")
		if code != tt.wantCode {
			t.Errorf("%s exited %d, want %d\nstderr:\n%s", name, code, tt.wantCode, stderr)
		}
		if !strings.Contains(stdout, tt.wantStdout) || tt.wantStdout == "" && stdout != "" {
			t.Errorf("%s printed %q, want %q", name, stdout, tt.wantStdout)
		}
		if !strings.Contains(stderr, tt.wantStderr) {
			t.Errorf("%s wrote %q to stderr, want it to contain %q", name, stderr, tt.wantStderr)
		}
	}
}

// TestAuditCommandBranches: ipam audit names the branch of each change of
// the schema of kinds, of branches and of objects, on main and on a
// branch.
func TestAuditCommandBranches(t *testing.T) {
	url := pgtest.NewURL(t)
	svc := openBranches(t, url)
	ctx := t.Context()
	op := auth.Actor{Name: "op", Role: auth.Operator}
	f, err := schema.Parse("vlans.yaml", []byte(schematest.Example))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.LoadSchema(ctx, op, branch.Main, f); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateBranch(ctx, op, "add-sites"); err != nil {
		t.Fatal(err)
	}
	onBranch, err := svc.CreateObject(ctx, op, "add-sites", "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": "site-a"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateObject(ctx, op, "add-sites", onBranch.ID, branch.ObjectInput{Attributes: map[string]any{"name": "site-b"}}); err != nil {
		t.Fatal(err)
	}
	onMain, err := svc.CreateObject(ctx, op, branch.Main, "LocationSite", branch.ObjectInput{Attributes: map[string]any{"name": "site-c"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.MergeBranch(ctx, op, "add-sites"); err != nil {
		t.Fatal(err)
	}

	// actor, branch, action, kind, object, the change's beginning.
	want := [][6]string{
		{"op", "main", "load", "Schema", "main", "loaded a schema on branch main: 11 changes; added generic DcimEndpoint; "},
		{"op", "add-sites", "create", "Branch", "add-sites", "created branch add-sites"},
		{"op", "add-sites", "create", "LocationSite", onBranch.ID, "created LocationSite site-a on branch add-sites"},
		{"op", "add-sites", "update", "LocationSite", onBranch.ID, "changed LocationSite site-b on branch add-sites; display label: site-a → site-b; name: site-a → site-b"},
		{"op", "main", "create", "LocationSite", onMain.ID, "created LocationSite site-c on branch main"},
		{"op", "main", "merge", "Branch", "add-sites", "merged branch add-sites into main: 1 object, 0 schema changes"},
	}
	out := mustRun(t, "", nil, "audit", "--database-url", url)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("ipam audit printed %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, line := range lines {
		m := auditLine.FindStringSubmatch(line)
		w := want[i]
		if m == nil || m[2] != w[0] || m[3] != w[1] || m[4] != w[2] || m[5] != w[3] || m[6] != w[4] || !strings.HasPrefix(m[7], w[5]) {
			t.Errorf("line %d = %q, want %s %s %s %s %s %s…", i, line, w[0], w[1], w[2], w[3], w[4], w[5])
		}
	}
}
