package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/pgtest"
	"pivirt.hu/ipam/internal/schema/schematest"
)

// branchedFrom is a branch's branch point as ipam branch prints it, read
// by a service of its own.
func branchedFrom(t *testing.T, url, name string) string {
	t.Helper()
	b, err := openBranches(t, url).Branch(t.Context(), auth.System, name)
	if err != nil {
		t.Fatal(err)
	}
	return b.BranchedFrom.UTC().Format(time.RFC3339)
}

// branchID is a branch's id, read by a service of its own.
func branchID(t *testing.T, url, name string) int64 {
	t.Helper()
	b, err := openBranches(t, url).Branch(t.Context(), auth.System, name)
	if err != nil {
		t.Fatal(err)
	}
	return b.ID
}

// objectCount counts the objects of a kind on a branch, read by a
// service of its own.
func objectCount(t *testing.T, url, branchName, kind string) int {
	t.Helper()
	page, err := openBranches(t, url).Objects(t.Context(), auth.System, branchName, kind, branch.Filter{}, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	return page.Count
}

// TestBranchCommands creates, lists, rebases, merges and deletes branches
// with ipam branch, and has it refuse an unknown branch, main, a merge and
// a rebase in conflict (listing every object and field), and mistakes of
// the command line.
func TestBranchCommands(t *testing.T) {
	url := pgtest.NewURL(t)
	env := []string{"DATABASE_URL=" + url}
	mustRun(t, "", env, "schema", "load", writeFile(t, t.TempDir(), "vlans.yaml", schematest.Example))
	// Each write through a service of its own, as another process would,
	// which knows the branches and schemas the commands changed.
	ctx := t.Context()
	siteA := mustCreate(t, url, branch.Main, "LocationSite", "site-a")
	siteB := mustCreate(t, url, branch.Main, "LocationSite", "site-b")
	rename := func(branchName, id, name string) {
		t.Helper()
		if _, err := openBranches(t, url).UpdateObject(ctx, auth.System, branchName, id, branch.ObjectInput{Attributes: map[string]any{"name": name}}); err != nil {
			t.Fatal(err)
		}
	}
	createVLAN := func(branchName, name, site string) {
		t.Helper()
		if _, err := openBranches(t, url).CreateObject(ctx, auth.System, branchName, "IpamVLAN", branch.ObjectInput{
			Attributes: map[string]any{"name": name, "vlan_id": 100}, Relationships: map[string][]string{"site": {site}}}); err != nil {
			t.Fatal(err)
		}
	}

	out := mustRun(t, "", env, "branch", "create", "feature")
	if want := "created branch feature, branched from main at " + branchedFrom(t, url, "feature") + "\n"; out != want {
		t.Errorf("ipam branch create feature printed %q, want %q", out, want)
	}
	wantRun(t, env, 1, "", "ipam: branch feature exists\n", "branch", "create", "feature")

	// Both sides change the names of both sites, and the branch adds a
	// VLAN.
	createVLAN("feature", "users", siteA)
	rename("feature", siteA, "site-a-feature")
	rename("feature", siteB, "site-b-feature")
	rename(branch.Main, siteA, "site-a-main")
	rename(branch.Main, siteB, "site-b-main")

	want := lines(
		"NAME     ID  DEFAULT  BRANCHED FROM         SCHEMA CHANGES  CREATED BY",
		"main     1   true     "+branchedFrom(t, url, "main")+"  false           system",
		fmt.Sprintf("feature  %-2d  false    %s  false           system", branchID(t, url, "feature"), branchedFrom(t, url, "feature")),
	)
	wantRun(t, env, 0, want, "", "branch", "list")

	conflicts := fmt.Sprintf(`LocationSite site-a-feature (id %s): name changed on both sides (main: "site-a-main", branch: "site-a-feature"); `+
		`LocationSite site-b-feature (id %s): name changed on both sides (main: "site-b-main", branch: "site-b-feature"); `+
		"keep one side of each conflict on the branch's page (/branches/feature) or change one side, then ", siteA, siteB)
	wantRun(t, env, 1, "", "ipam: cannot merge branch feature into main: "+conflicts+"merge again\n", "branch", "merge", "feature")
	wantRun(t, env, 1, "", "ipam: cannot rebase branch feature onto main: "+conflicts+"rebase again\n", "branch", "rebase", "feature")
	if n := objectCount(t, url, branch.Main, "IpamVLAN"); n != 0 {
		t.Errorf("main holds %d VLANs after a refused merge, want 0", n)
	}
	if n := objectCount(t, url, "feature", "IpamVLAN"); n != 1 {
		t.Errorf("feature holds %d VLANs after a refused rebase, want 1", n)
	}

	point := branchedFrom(t, url, "feature")
	wantRun(t, env, 0, "deleted branch feature (branched from main at "+point+")\n", "", "branch", "delete", "feature")
	for _, action := range []string{"rebase", "merge", "delete"} {
		wantRun(t, env, 1, "", "ipam: branch feature not found\n", "branch", action, "feature")
	}

	// Again, without conflicts: main's later site is seen once rebased,
	// the branch's VLAN and schema change once merged.
	mustRun(t, "", env, "branch", "create", "feature")
	createVLAN("feature", "users", siteA)
	mustRun(t, "", env, "schema", "load", "--branch", "feature", writeFile(t, t.TempDir(), "racks.yaml", rackSchema))
	mustCreate(t, url, branch.Main, "LocationSite", "site-c")
	if n := objectCount(t, url, "feature", "LocationSite"); n != 2 {
		t.Errorf("feature sees %d sites before its rebase, want 2", n)
	}
	out = mustRun(t, "", env, "branch", "rebase", "feature")
	if want := "rebased branch feature onto main at " + branchedFrom(t, url, "feature") + "\n"; out != want {
		t.Errorf("ipam branch rebase feature printed %q, want %q", out, want)
	}
	if n := objectCount(t, url, "feature", "LocationSite"); n != 3 {
		t.Errorf("feature sees %d sites after its rebase, want 3", n)
	}
	want = lines(
		"NAME     ID  DEFAULT  BRANCHED FROM         SCHEMA CHANGES  CREATED BY",
		"main     1   true     "+branchedFrom(t, url, "main")+"  false           system",
		fmt.Sprintf("feature  %-2d  false    %s  true            system", branchID(t, url, "feature"), branchedFrom(t, url, "feature")),
	)
	wantRun(t, env, 0, want, "", "branch", "list")
	out = mustRun(t, "", env, "branch", "merge", "feature")
	if want := "merged branch feature into main; it is rebased onto main at " + branchedFrom(t, url, "feature") + "\n"; out != want {
		t.Errorf("ipam branch merge feature printed %q, want %q", out, want)
	}
	if n := objectCount(t, url, branch.Main, "IpamVLAN"); n != 1 {
		t.Errorf("main holds %d VLANs after the merge, want 1", n)
	}
	if _, ok := schemaIDs(t, env)["DcimRack"]; !ok {
		t.Errorf("main's schema has no DcimRack after the merge")
	}

	// A merge that would break a unique attribute names the constraint and
	// the objects.
	mustRun(t, "", env, "branch", "create", "dup")
	rackFeature := mustCreate(t, url, "dup", "DcimRack", "rack-1")
	rackMain := mustCreate(t, url, branch.Main, "DcimRack", "rack-1")
	wantRun(t, env, 1, "", fmt.Sprintf("ipam: cannot merge branch dup into main: DcimRack: Violates uniqueness constraint 'name' (objects rack-1 (id %s), rack-1 (id %s))\n", rackFeature, rackMain),
		"branch", "merge", "dup")

	// main, unknown branches and names that are none.
	tests := []struct {
		args             []string
		wantCode         int
		wantStdout       string
		wantStderrPrefix string
	}{
		{[]string{"branch", "create", "main"}, 1, "", "ipam: branch main exists\n"},
		{[]string{"branch", "delete", "main"}, 1, "", "ipam: branch main is the default branch; it cannot be deleted\n"},
		{[]string{"branch", "merge", "main"}, 1, "", "ipam: branch main is the default branch; it cannot be merged\n"},
		{[]string{"branch", "rebase", "main"}, 1, "", "ipam: branch main is the default branch; it cannot be rebased\n"},
		{[]string{"branch", "rebase", "nope"}, 1, "", "ipam: branch nope not found\n"},
		{[]string{"branch", "create", "add vlans"}, 1, "", `ipam: name "add vlans" is not a branch's name: letters, digits, '.', '_' and '-', in segments separated by '/', each starting with a letter or a digit` + "\n"},
		{[]string{"branch"}, 2, "", "ipam: branch needs a subcommand\nUsage:\n  ipam branch create NAME"},
		{[]string{"branch", "rename", "feature"}, 2, "", "ipam: unknown branch subcommand \"rename\"\nUsage:"},
		{[]string{"branch", "create"}, 2, "", "ipam: branch create takes one NAME, got []\n"},
		{[]string{"branch", "merge", "a", "b"}, 2, "", "ipam: branch merge takes one NAME, got [\"a\" \"b\"]\n"},
		{[]string{"branch", "list", "all"}, 2, "", "ipam: branch list takes no arguments, got [\"all\"]\n"},
		// The flag's usage follows the mistake, without the URL of
		// DATABASE_URL, which may hold a password.
		{[]string{"branch", "delete", "--force", "dup"}, 2, "", "flag provided but not defined: -force\nUsage of branch delete:\n"},
		{[]string{"branch", "help"}, 0, "Usage:\n  ipam branch create NAME", ""},
	}
	for _, tt := range tests {
		code, stdout, stderr := runWithStdin(t, "", env, tt.args...)
		name := "ipam " + strings.Join(tt.args, " ")
		if code != tt.wantCode {
			t.Errorf("%s exited %d, want %d\nstderr:\n%s", name, code, tt.wantCode, stderr)
		}
		if !strings.HasPrefix(stdout, tt.wantStdout) || tt.wantStdout == "" && stdout != "" {
			t.Errorf("%s printed %q, want it to begin with %q", name, stdout, tt.wantStdout)
		}
		if !strings.HasPrefix(stderr, tt.wantStderrPrefix) || tt.wantStderrPrefix == "" && stderr != "" {
			t.Errorf("%s wrote %q to stderr, want it to begin with %q", name, stderr, tt.wantStderrPrefix)
		}
		if strings.Contains(stdout+stderr, url) {
			t.Errorf("%s printed the URL of DATABASE_URL", name)
		}
	}
	if n := objectCount(t, url, branch.Main, "DcimRack"); n != 1 {
		t.Errorf("main holds %d racks after refused merges, want 1", n)
	}
}
