package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/store"
)

// The example manifests of internal/manifest/testdata, shared with the
// parser's tests.
var (
	seedPublicPool  = seedManifest("seed-public-pool.yaml")
	seedPrivatePool = seedManifest("seed-private-pool.yaml")
	seedAllocation  = seedManifest("seed-allocation.yaml")
)

// seedManifest returns a manifest of internal/manifest's testdata.
func seedManifest(name string) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "manifest", "testdata", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// writeManifest writes a manifest file in the test's folder.
func writeManifest(t *testing.T, content string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "manifest.yaml")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// openIPAM opens an ipam.Service on url, as another process would.
func openIPAM(t *testing.T, url string) *ipam.Service {
	t.Helper()
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := ipam.New(context.Background(), ipam.Config{DB: db, URL: url})
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		svc.Close()
		db.Close()
	})
	return svc
}

// poolNames lists the names of the stored pools.
func poolNames(t *testing.T, svc *ipam.Service) []string {
	t.Helper()
	pools, err := svc.Pools(t.Context(), auth.System, "", "")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, p := range pools {
		names = append(names, p.Name)
	}
	return names
}

func TestApply(t *testing.T) {
	url := pgtest.NewURL(t)
	svc := openIPAM(t, url)
	file := writeManifest(t, seedPublicPool)

	if out := mustRun(t, "", nil, "apply", "-f", file, "--database-url", url); out != "ipampool/public-zone-a created\n" {
		t.Errorf("ipam apply printed %q, want created", out)
	}
	pool, err := svc.Pool(t.Context(), auth.System, "", "public-zone-a")
	if err != nil {
		t.Fatal(err)
	}
	if pool.CIDR.String() != "203.0.113.0/24" || pool.Gateway.String() != "203.0.113.1" || strings.Join(pool.Exclude, " ") != "203.0.113.2 203.0.113.3" || pool.Zone != "zone-a" || pool.CreatedBy != auth.System.Name {
		t.Errorf("the applied pool is %+v", pool)
	}
	if out := mustRun(t, "", nil, "apply", "--database-url", url, "-f", file); out != "ipampool/public-zone-a unchanged\n" {
		t.Errorf("ipam apply again printed %q, want unchanged", out)
	}
	// From standard input, with a second pool: one line per pool.
	edge := strings.ReplaceAll(strings.ReplaceAll(seedPublicPool, "public-zone-a", "edge-b"), "203.0.113.", "198.51.100.")
	out := mustRun(t, seedPublicPool+"---\n"+edge, []string{"DATABASE_URL=" + url}, "apply", "-f", "-")
	if out != "ipampool/public-zone-a unchanged\nipampool/edge-b created\n" {
		t.Errorf("ipam apply -f - printed %q", out)
	}
	// Another spec for a stored pool is refused.
	changed := strings.Replace(seedPublicPool, "zone: zone-a", "zone: zone-b", 1)
	code, stdout, stderr := runWithStdin(t, changed, nil, "apply", "-f", "-", "--database-url", url)
	if want := "ipam: ipampool/public-zone-a: public pool public-zone-a exists already with another spec (cidr 203.0.113.0/24, gateway 203.0.113.1, exclude 203.0.113.2,203.0.113.3, zone zone-a); change its gateway, excludes or zone with updatePublicPool, or create another pool\n"; code != 1 || stdout != "" || stderr != want {
		t.Errorf("ipam apply of another zone exited %d, printed %q and wrote %q; want 1, nothing and %q", code, stdout, stderr, want)
	}
	again, err := svc.Pool(t.Context(), auth.System, "", "public-zone-a")
	if err != nil || again.UID != pool.UID || again.Zone != "zone-a" {
		t.Errorf("public-zone-a after applying it again: %+v, %v; want it as it was, uid %s", again, err, pool.UID)
	}
}

// TestApplyAllOrNothing checks that a manifest with one refused document
// stores none of its pools, and that each refusal says why.
func TestApplyAllOrNothing(t *testing.T) {
	url := pgtest.NewURL(t)
	svc := openIPAM(t, url)
	second := func(spec string) string {
		return seedPublicPool + "---\napiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: edge\nspec:\n" + spec
	}
	tests := []struct {
		name       string
		manifest   string
		wantStderr string // all of it
	}{
		{"a field missing in document 2", second("  kind: public\n"), "ipam: document 2 (line 14): spec.cidr: required\n"},
		{"host bits in document 2", second("  cidr: 10.0.0.5/24\n  kind: public\n"),
			"ipam: document 2 (line 14): spec.cidr: cidr 10.0.0.5/24 has host bits set; did you mean 10.0.0.0/24?\n"},
		{"document 2 overlapping document 1", second("  cidr: 203.0.113.128/25\n  kind: public\n"),
			"ipam: ipampool/edge: cidr 203.0.113.128/25 overlaps public pool public-zone-a (203.0.113.0/24)\n"},
		{"the example private pool", seedPrivatePool, "ipam: private pools are created for each VPC; create a VPC instead\n"},
		{"the example allocation", seedAllocation, "ipam: allocations are made by Allocate, never applied\n"},
		{"the three example documents", seedPublicPool + "---\n" + seedPrivatePool + "---\n" + seedAllocation,
			"ipam: document 2 (line 16): private pools are created for each VPC; create a VPC instead\n" +
				"document 3 (line 28): allocations are made by Allocate, never applied\n"},
		{"a VPC name too long for its pool, in document 2", seedPublicPool + "---\napiVersion: pivirt.hu/v1\nkind: VPC\nmetadata:\n  name: " + strings.Repeat("v", 60) +
			"\n  namespace: acme/prod\nspec:\n  cidr: 10.42.0.0/16\n",
			"ipam: document 2 (line 14): metadata.name: name \"" + strings.Repeat("v", 60) + "\" is too long for a VPC: at most 59 characters, since its pool is named vpc-<name>\n"},
		{"a VPC of a zone without pools, after a pool and a VPC", seedPublicPool + "---\n" + vpcManifest("main", "10.42.0.0/16", "zone-a") + "---\n" + vpcManifest("lab", "10.43.0.0/16", "zone-c"),
			"ipam: vpc/acme/prod/lab: spec.zone: zone zone-c has no public pool\n"},
		{"a subnet outside its VPC", vpcManifest("main", "10.42.0.0/16", "") + "  subnets:\n    - {name: web, cidr: 10.42.1.0/24}\n    - {name: db, cidr: 10.43.2.0/24}\n",
			"ipam: vpc/acme/prod/main: spec.subnets[1].cidr: cidr 10.43.2.0/24 is outside VPC main's 10.42.0.0/16\n"},
		{"a private pool of a VPC that the manifest does not create", seedPublicPool + "---\n" +
			strings.Replace(seedPrivatePool, "<vpc uid>", "5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b", 1),
			"ipam: ipampool/acme/prod/vpc-main: private pools are created for each VPC; create a VPC instead\n"},
		{"an empty manifest", "---\n# nothing yet\n",
			"ipam: the manifest holds no object; write an IPAMPool with apiVersion: pivirt.hu/v1, kind: IPAMPool, metadata and spec\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runWithStdin(t, "", nil, "apply", "-f", writeManifest(t, tt.manifest), "--database-url", url)
			if code != 1 || stdout != "" || stderr != tt.wantStderr {
				t.Errorf("ipam apply exited %d, printed %q and wrote\n%s\nwant 1, nothing and\n%s", code, stdout, stderr, tt.wantStderr)
			}
			if names := poolNames(t, svc); len(names) > 0 {
				t.Errorf("a refused manifest stored the pools %q", names)
			}
		})
	}
}

func TestApplyAndGetMistakes(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStderr string
	}{
		{[]string{"apply"}, 2, "ipam: apply needs -f FILE, or -f - to read the manifest from standard input\n"},
		{[]string{"apply", "-f", "pools.yaml", "more.yaml"}, 2, `ipam: apply takes no arguments, got ["more.yaml"]` + "\n"},
		{[]string{"apply", "-f", "/nonexistent/pools.yaml"}, 1, "ipam: unable to read the manifest: open /nonexistent/pools.yaml: no such file or directory\n"},
		{[]string{"apply", "-f", "/"}, 1, "ipam: unable to read the manifest: read /: is a directory\n"},
		{[]string{"get"}, 2, "ipam: get needs what to list: pools, allocations or vpcs\nUsage:\n  ipam get pools|allocations|vpcs"},
		{[]string{"get", "-n", "acme/prod"}, 2, "ipam: get takes one NAME, got []\n"},
		{[]string{"get", "pools", "vpcs"}, 2, `ipam: get takes one NAME, got ["pools" "vpcs"]`},
		{[]string{"get", "subnets"}, 2, `ipam: get lists pools, allocations or vpcs, not "subnets"`},
		{[]string{"get", "pools", "-o", "json"}, 2, `ipam: -o must be table or yaml, got "json"` + "\n"},
		{[]string{"get", "pools", "--all"}, 2, "ipam: flag provided but not defined: -all\n"},
		{[]string{"apply", "-h"}, 0, "ipam apply -f FILE"},
		{[]string{"get", "--help"}, 0, "ipam get pools|allocations|vpcs"},
	}
	for _, tt := range tests {
		name := "ipam " + strings.Join(tt.args, " ")
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runWithStdin(t, "", nil, tt.args...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantStderr) || stdout != "" {
				t.Errorf("%s exited %d, printed %q and wrote %q; want %d, nothing and %q", name, code, stdout, stderr, tt.wantCode, tt.wantStderr)
			}
		})
	}
}

// TestGet prints what a VPC with a subnet and a VM holds, after the
// example public pool was applied.
func TestGet(t *testing.T) {
	url := pgtest.NewURL(t)
	svc := openIPAM(t, url)
	ctx := t.Context()
	mustRun(t, "", nil, "apply", "-f", writeManifest(t, seedPublicPool), "--database-url", url)
	vpc, err := svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, auth.System, ipam.CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	vm, err := svc.AttachInterface(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: "vm-7f3a", Hostname: "web-01"}})
	if err != nil || vm.Address.String() != "10.42.1.2" {
		t.Fatalf("AttachInterface = %v, %v; want 10.42.1.2", vm.Address, err)
	}
	if _, err := svc.CreateVPC(ctx, auth.System, ipam.CreateVPCInput{Namespace: "globex/dev", Name: "lab", CIDR: "172.16.0.0/20"}); err != nil {
		t.Fatal(err)
	}
	public, err := svc.Pool(ctx, auth.System, "", "public-zone-a")
	if err != nil {
		t.Fatal(err)
	}
	private, err := svc.Pool(ctx, auth.System, "acme/prod", "vpc-main")
	if err != nil {
		t.Fatal(err)
	}
	lab, err := svc.VPC(ctx, auth.System, "globex/dev", "lab")
	if err != nil {
		t.Fatal(err)
	}

	publicYAML := `apiVersion: pivirt.hu/v1
kind: IPAMPool
metadata:
  name: public-zone-a
  uid: ` + public.UID + `
spec:
  cidr: 203.0.113.0/24
  kind: public
  gateway: 203.0.113.1
  exclude: [203.0.113.2, 203.0.113.3]
  zone: zone-a
`
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"get", "pools"}, `NAMESPACE    NAME            KIND      CIDR             GATEWAY       ZONE     USED   SIZE
-            public-zone-a   public    203.0.113.0/24   203.0.113.1   zone-a   1      251
acme/prod    vpc-main        private   10.42.0.0/16     -             -        1      65534
globex/dev   vpc-lab         private   172.16.0.0/20    -             -        0      4094
`},
		{[]string{"get", "pools", "-n", "", "-o", "table"}, `NAMESPACE   NAME            KIND     CIDR             GATEWAY       ZONE     USED   SIZE
-           public-zone-a   public   203.0.113.0/24   203.0.113.1   zone-a   1      251
`},
		{[]string{"get", "pools", "-o", "yaml", "--namespace", "acme/prod"}, `apiVersion: pivirt.hu/v1
kind: IPAMPool
metadata:
  name: vpc-main
  namespace: acme/prod
  uid: ` + private.UID + `
  ownerRefs: [{kind: VPC, uid: ` + vpc.UID + `, controller: true}]
spec:
  cidr: 10.42.0.0/16
  kind: private
`},
		{[]string{"get", "-o=yaml", "pools", "-n="}, publicYAML},
		{[]string{"get", "vpcs"}, `NAMESPACE    NAME   CIDR            ZONE     ROUTER        DEFAULT-ROUTE   SUBNETS
acme/prod    main   10.42.0.0/16    zone-a   203.0.113.4   203.0.113.1     1
globex/dev   lab    172.16.0.0/20   -        -             -               0
`},
		{[]string{"get", "vpc", "-o", "yaml"}, `apiVersion: pivirt.hu/v1
kind: VPC
metadata:
  name: main
  namespace: acme/prod
  uid: ` + vpc.UID + `
spec:
  cidr: 10.42.0.0/16
  zone: zone-a
  subnets:
    - {name: web, cidr: 10.42.1.0/24, gateway: 10.42.1.1}
status:
  pool: vpc-main
  router: 203.0.113.4
  defaultRoute: 203.0.113.1
---
apiVersion: pivirt.hu/v1
kind: VPC
metadata:
  name: lab
  namespace: globex/dev
  uid: ` + lab.UID + `
spec:
  cidr: 172.16.0.0/20
status:
  pool: vpc-lab
`},
		{[]string{"get", "vpcs", "-n", ""}, "NAMESPACE   NAME   CIDR   ZONE   ROUTER   DEFAULT-ROUTE   SUBNETS\n"},
		{[]string{"get", "allocations", "-n", "acme/prod"}, `NAMESPACE   NAME                 POOL       ADDRESS     OWNER-KIND       OWNER-NAME
acme/prod   vpc-main-10-42-1-2   vpc-main   10.42.1.2   VirtualMachine   web-01/0
`},
		{[]string{"get", "allocations"}, `NAMESPACE   NAME                        POOL            ADDRESS       OWNER-KIND       OWNER-NAME
-           public-zone-a-203-0-113-4   public-zone-a   203.0.113.4   VPC              router
acme/prod   vpc-main-10-42-1-2          vpc-main        10.42.1.2     VirtualMachine   web-01/0
`},
		{[]string{"get", "allocations", "-n", "acme/prod", "-o", "yaml"}, `apiVersion: pivirt.hu/v1
kind: IPAllocation
metadata:
  name: vpc-main-10-42-1-2
  namespace: acme/prod
  uid: ` + vm.UID + `
  creationTimestamp: "` + vm.CreatedAt.UTC().Format(time.RFC3339) + `"
  labels: {pivirt.hu/managed-by: director}
spec:
  pool: vpc-main
  address: 10.42.1.2
  owner: {kind: VirtualMachine, uid: vm-7f3a, name: web-01/0}
`},
		{[]string{"get", "allocations", "-n", "nobody/here", "-o", "yaml"}, ""},
	}
	for _, tt := range tests {
		name := "ipam " + strings.Join(tt.args, " ")
		t.Run(name, func(t *testing.T) {
			if got := mustRun(t, "", nil, append(tt.args, "--database-url", url)...); got != tt.want {
				t.Errorf("%s printed:\n%s\nwant:\n%s", name, got, tt.want)
			}
		})
	}
}

// TestGetApplyRoundTrip applies what get pools -o yaml prints of the
// public pools: it changes nothing.
func TestGetApplyRoundTrip(t *testing.T) {
	url := pgtest.NewURL(t)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	edge := "---\napiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: edge\nspec:\n  cidr: 198.51.100.0/28\n  kind: public\n" +
		"  exclude:\n    - 198.51.100.2\n    - 198.51.100.5 - 198.51.100.7\n"
	mustRun(t, seedPublicPool+edge, nil, "apply", "-f", "-", "--database-url", url)

	printed := mustRun(t, "", nil, "get", "pools", "-n", "", "-o", "yaml", "--database-url", url)
	if !strings.Contains(printed, "exclude: [198.51.100.2, 198.51.100.5-198.51.100.7]") {
		t.Errorf("ipam get pools -o yaml printed:\n%s\nwant the excludes of edge as stored", printed)
	}
	var audited int
	if err := db.GetContext(t.Context(), &audited, `SELECT count(*) FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, printed, nil, "apply", "-f", "-", "--database-url", url)
	if out != "ipampool/edge unchanged\nipampool/public-zone-a unchanged\n" {
		t.Errorf("ipam apply of what get printed printed %q, want both unchanged", out)
	}
	if again := mustRun(t, "", nil, "get", "pools", "-o", "yaml", "--database-url", url); again != printed {
		t.Errorf("after applying it, ipam get pools -o yaml prints:\n%s\nbefore:\n%s", again, printed)
	}
	var after int
	if err := db.GetContext(t.Context(), &after, `SELECT count(*) FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	if after != audited {
		t.Errorf("applying unchanged pools wrote %d audit entries", after-audited)
	}
}

// vpcManifest is a VPC document of acme/prod, of a zone unless zone is
// empty.
func vpcManifest(name, cidr, zone string) string {
	m := "apiVersion: pivirt.hu/v1\nkind: VPC\nmetadata:\n  name: " + name + "\n  namespace: acme/prod\nspec:\n  cidr: " + cidr + "\n"
	if zone != "" {
		m += "  zone: " + zone + "\n"
	}
	return m
}

// TestApplyVPCs applies VPC documents: created, unchanged, configured
// (a subnet added), refused naming the field that cannot change.
func TestApplyVPCs(t *testing.T) {
	url := pgtest.NewURL(t)
	svc := openIPAM(t, url)
	main := vpcManifest("main", "10.42.0.0/16", "zone-a") + "  subnets:\n    - {name: web, cidr: 10.42.1.0/24}\n"
	out := mustRun(t, main+"---\n"+seedPublicPool, nil, "apply", "-f", "-", "--database-url", url)
	if out != "vpc/acme/prod/main created\nipampool/public-zone-a created\n" {
		t.Errorf("ipam apply printed %q, want main and public-zone-a created", out)
	}
	if out := mustRun(t, main, nil, "apply", "-f", "-", "--database-url", url); out != "vpc/acme/prod/main unchanged\n" {
		t.Errorf("ipam apply again printed %q, want unchanged", out)
	}
	withDB := main + "    - {name: db, cidr: 10.42.2.0/24, gateway: 10.42.2.254}\n"
	if out := mustRun(t, withDB, nil, "apply", "-f", "-", "--database-url", url); out != "vpc/acme/prod/main configured\n" {
		t.Errorf("ipam apply with a subnet more printed %q, want configured", out)
	}
	// Without its subnets, the VPC stays as it is: apply never deletes.
	if out := mustRun(t, vpcManifest("main", "10.42.0.0/16", "zone-a"), nil, "apply", "-f", "-", "--database-url", url); out != "vpc/acme/prod/main unchanged\n" {
		t.Errorf("ipam apply without subnets printed %q, want unchanged", out)
	}
	vpc, err := svc.VPC(t.Context(), auth.System, "acme/prod", "main")
	if err != nil {
		t.Fatal(err)
	}
	if subnets, err := svc.Subnets(t.Context(), auth.System, vpc); err != nil || len(subnets) != 2 || subnets[1].Gateway.String() != "10.42.2.254" {
		t.Errorf("main's subnets are %+v, %v; want web and db, by 10.42.2.254", subnets, err)
	}
	tests := []struct{ name, manifest, want string }{
		{"another cidr", vpcManifest("main", "10.42.0.0/17", "zone-a"),
			"ipam: vpc/acme/prod/main: spec.cidr: VPC acme/prod/main has cidr 10.42.0.0/16; a VPC's cidr never changes: create another VPC\n"},
		{"no zone", vpcManifest("main", "10.42.0.0/16", ""),
			"ipam: vpc/acme/prod/main: spec.zone: VPC acme/prod/main is in zone zone-a; a VPC's zone never changes: create another VPC\n"},
		{"another uid", strings.Replace(main, "  namespace: acme/prod\n", "  namespace: acme/prod\n  uid: 5b0e8f4a-1c2d-4e3f-8a9b-0c1d2e3f4a5b\n", 1),
			"ipam: vpc/acme/prod/main: metadata.uid: VPC acme/prod/main has uid " + vpc.UID + "; a VPC's uid never changes: give that one, or none\n"},
		{"another uid's VPC", strings.Replace(vpcManifest("lab", "10.43.0.0/16", ""), "  namespace: acme/prod\n", "  namespace: acme/prod\n  uid: "+vpc.UID+"\n", 1),
			"ipam: vpc/acme/prod/lab: metadata.uid: uid " + vpc.UID + " is VPC acme/prod/main's; give another uid, or none\n"},
		{"a subnet's cidr", main + "    - {name: db, cidr: 10.42.2.0/25}\n",
			"ipam: vpc/acme/prod/main: spec.subnets[1].cidr: subnet db of VPC acme/prod/main has cidr 10.42.2.0/24; a subnet's cidr never changes: create another subnet\n"},
		{"a subnet's gateway", main + "    - {name: db, cidr: 10.42.2.0/24, gateway: 10.42.2.1}\n",
			"ipam: vpc/acme/prod/main: spec.subnets[1].gateway: subnet db of VPC acme/prod/main has gateway 10.42.2.254; a subnet's gateway never changes: create another subnet\n"},
		{"a new subnet overlapping one", main + "    - {name: dmz, cidr: 10.42.0.0/23}\n",
			"ipam: vpc/acme/prod/main: spec.subnets[1]: cidr 10.42.0.0/23 overlaps subnet web (10.42.1.0/24) of VPC main\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runWithStdin(t, tt.manifest, nil, "apply", "-f", "-", "--database-url", url)
			if code != 1 || stdout != "" || stderr != tt.want {
				t.Errorf("ipam apply exited %d, printed %q and wrote\n%s\nwant 1, nothing and\n%s", code, stdout, stderr, tt.want)
			}
		})
	}
	if names := poolNames(t, svc); strings.Join(names, " ") != "public-zone-a vpc-main" {
		t.Errorf("after the refusals the pools are %q, want public-zone-a and vpc-main", names)
	}
}

// TestGetApplyRoundTripVPCs applies what ipam get pools and ipam get vpcs
// print of a database with public pools of two zones (one with labels),
// VPCs with zones, subnets and a VM: to the same database it changes
// nothing; to a fresh one it makes the same pools and VPCs, with the VPCs'
// uids.
func TestGetApplyRoundTripVPCs(t *testing.T) {
	url := pgtest.NewURL(t)
	svc := openIPAM(t, url)
	db, err := store.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := t.Context()
	labelled := strings.Replace(seedPublicPool, "  name: public-zone-a\n", "  name: public-zone-a\n  labels: {team: net, pivirt.hu/tier: gold}\n", 1)
	edge := "---\napiVersion: pivirt.hu/v1\nkind: IPAMPool\nmetadata:\n  name: edge-b\nspec:\n  cidr: 198.51.100.0/28\n  kind: public\n  zone: zone-b\n"
	mustRun(t, labelled+edge, nil, "apply", "-f", "-", "--database-url", url)
	// Made as the console and the API make them, in namespace and name
	// order (so that a fresh database gives their routers the same
	// addresses).
	for _, v := range []ipam.CreateVPCInput{
		{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16", Zone: "zone-a"},
		{Namespace: "globex/dev", Name: "edge", CIDR: "10.9.0.0/24", Zone: "zone-b"},
		{Namespace: "globex/dev", Name: "lab", CIDR: "172.16.0.0/20"},
	} {
		if _, err := svc.CreateVPC(ctx, auth.System, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []ipam.CreateSubnetInput{
		{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"},
		{Namespace: "acme/prod", VPC: "main", Name: "db", PrefixLength: 26},
		{Namespace: "globex/dev", VPC: "lab", Name: "dmz", CIDR: "172.16.4.0/23", Gateway: "172.16.5.254"},
	} {
		if _, err := svc.CreateSubnet(ctx, auth.System, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.AttachInterface(ctx, auth.System, ipam.AttachInterfaceInput{Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: ipam.VMRef{UID: "vm-1", Hostname: "web-01"}}); err != nil {
		t.Fatal(err)
	}

	get := func(url, what string) string {
		return mustRun(t, "", nil, "get", what, "-o", "yaml", "--database-url", url)
	}
	pools, vpcs := get(url, "pools"), get(url, "vpcs")
	for _, want := range []string{"  labels: {pivirt.hu/tier: gold, team: net}\n", "    - {name: dmz, cidr: 172.16.4.0/23, gateway: 172.16.5.254}\n"} {
		if !strings.Contains(pools+vpcs, want) {
			t.Errorf("ipam get pools and vpcs printed:\n%s%s\nwant %q in it", pools, vpcs, want)
		}
	}
	audited := auditCount(t, db)
	unchanged := "ipampool/edge-b unchanged\nipampool/public-zone-a unchanged\n" +
		"ipampool/acme/prod/vpc-main unchanged\nipampool/globex/dev/vpc-edge unchanged\nipampool/globex/dev/vpc-lab unchanged\n"
	if out := mustRun(t, pools, nil, "apply", "-f", "-", "--database-url", url); out != unchanged {
		t.Errorf("ipam get pools -o yaml | ipam apply -f - printed:\n%s\nwant:\n%s", out, unchanged)
	}
	vpcsUnchanged := "vpc/acme/prod/main unchanged\nvpc/globex/dev/edge unchanged\nvpc/globex/dev/lab unchanged\n"
	if out := mustRun(t, vpcs, nil, "apply", "-f", "-", "--database-url", url); out != vpcsUnchanged {
		t.Errorf("ipam get vpcs -o yaml | ipam apply -f - printed:\n%s\nwant:\n%s", out, vpcsUnchanged)
	}
	if n := auditCount(t, db) - audited; n != 0 {
		t.Errorf("applying what get printed wrote %d audit entries", n)
	}
	if again := get(url, "pools") + get(url, "vpcs"); again != pools+vpcs {
		t.Errorf("after applying it, ipam get prints:\n%s\nbefore:\n%s", again, pools+vpcs)
	}

	// A fresh database: the private pools alone are refused, their VPCs
	// being unknown there; with the VPCs, all is made.
	fresh := pgtest.NewURL(t)
	code, stdout, stderr := runWithStdin(t, pools, nil, "apply", "-f", "-", "--database-url", fresh)
	if want := "ipam: ipampool/acme/prod/vpc-main: private pools are created for each VPC; create a VPC instead\n"; code != 1 || stdout != "" || stderr != want {
		t.Errorf("ipam get pools -o yaml | ipam apply -f - on a fresh database exited %d, printed %q and wrote %q; want 1, nothing and %q", code, stdout, stderr, want)
	}
	created := "ipampool/edge-b created\nipampool/public-zone-a created\n" +
		"ipampool/acme/prod/vpc-main unchanged\nipampool/globex/dev/vpc-edge unchanged\nipampool/globex/dev/vpc-lab unchanged\n" +
		"vpc/acme/prod/main created\nvpc/globex/dev/edge created\nvpc/globex/dev/lab created\n"
	if out := mustRun(t, pools+"---\n"+vpcs, nil, "apply", "-f", "-", "--database-url", fresh); out != created {
		t.Errorf("ipam apply of both on a fresh database printed:\n%s\nwant:\n%s", out, created)
	}
	if got := get(fresh, "vpcs"); got != vpcs {
		t.Errorf("on the fresh database, ipam get vpcs -o yaml prints:\n%s\nwant, as on the first:\n%s", got, vpcs)
	}
	uids := regexp.MustCompile(`(?m)^  uid: .*\n`)
	if got := get(fresh, "pools"); uids.ReplaceAllString(got, "") != uids.ReplaceAllString(pools, "") {
		t.Errorf("on the fresh database, ipam get pools -o yaml prints:\n%s\nwant, but for the pools' uids, as on the first:\n%s", got, pools)
	}
	if out := mustRun(t, vpcs+"---\n"+pools, nil, "apply", "-f", "-", "--database-url", fresh); out != vpcsUnchanged+unchanged {
		t.Errorf("ipam apply of both again printed:\n%s\nwant all unchanged", out)
	}
}

// auditCount counts the entries of the audit log.
func auditCount(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM audit_log`); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestApplyEmbeddedPostgres applies and gets against ipam's own
// PostgreSQL, without a URL.
func TestApplyEmbeddedPostgres(t *testing.T) {
	dataDir := newDataDir(t)
	run := func(stdin string, args ...string) string {
		t.Helper()
		code, stdout, stderr := runWithStdin(t, stdin, nil, append(args, "--data-dir", dataDir)...)
		if code != 0 {
			t.Fatalf("ipam %s exited %d\nstderr:\n%s", strings.Join(args, " "), code, stderr)
		}
		return stdout
	}
	began := time.Now()
	if out := run(seedPublicPool, "apply", "-f", "-"); out != "ipampool/public-zone-a created\n" {
		t.Errorf("ipam apply printed %q", out)
	}
	t.Logf("ipam apply took %v with a new embedded PostgreSQL", time.Since(began).Round(time.Millisecond))
	want := "NAMESPACE   NAME            KIND     CIDR             GATEWAY       ZONE     USED   SIZE\n" +
		"-           public-zone-a   public   203.0.113.0/24   203.0.113.1   zone-a   0      251\n"
	if out := run("", "get", "pools"); out != want {
		t.Errorf("ipam get pools printed:\n%s\nwant:\n%s", out, want)
	}
}
