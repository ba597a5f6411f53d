package numbers

import (
	"context"
	"testing"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

// siteTemplate is LocationSite with a label template of its own.
const siteTemplate = "version: '1.0'\nnodes:\n  - {name: Site, namespace: Location, display_label: 'Site {{ name__value }}', attributes: [{name: name, kind: Text, unique: true}]}\n"

// TestDivisionFirstCountedDuringAChange: a division a page counts for the
// first time (its row inserted by the fold, not committed yet) while a
// change that alters its label or its usage is under way: the site
// renamed, the site's label template, the pool's ranges. Whichever
// commits first, the usage kept afterwards is the division's, labels
// included, once the marks are folded; no change is left unmarked.
func TestDivisionFirstCountedDuringAChange(t *testing.T) {
	ranges := []store.NumberRange{{Start: 1, End: 99, Weight: 1}}
	// setup makes a site with VLANs in it, not yet counted; change is
	// the change under way, and the ranges it leaves; held the text of
	// its last statement, whose answer is held.
	type change struct {
		held   string
		ranges []store.NumberRange
		run    func(o *env, p Pool, site string) error
	}
	rename := change{held: "INSERT INTO object_versions", ranges: ranges, run: func(o *env, p Pool, site string) error {
		_, err := o.branches.UpdateObject(context.Background(), operator, branch.Main, site, branch.ObjectInput{Attributes: map[string]any{"name": "zulu"}})
		return err
	}}
	template := change{held: "INSERT INTO schema_versions", ranges: ranges, run: func(o *env, p Pool, site string) error {
		return o.loadErr(branch.Main, siteTemplate)
	}}
	narrowed := []store.NumberRange{{Start: 1, End: 1, Weight: 1}}
	newRanges := change{held: "UPDATE number_pools SET name", ranges: narrowed, run: func(o *env, p Pool, site string) error {
		_, err := o.svc.UpdatePool(context.Background(), operator, p.ID, PoolUpdate{Ranges: []Range{{Start: 1, End: 1, Weight: 1}}})
		return err
	}}
	for _, c := range []struct {
		name string
		change
		// foldFirst runs the fold's counting statement before the change
		// writes, and lets it label once the change is written.
		foldFirst bool
	}{
		{"a site renamed, then counted", rename, false},
		{"counted, then the site renamed", rename, true},
		{"a new label template, then counted", template, false},
		{"counted, then a new label template", template, true},
		{"new ranges, then counted", newRanges, false},
		{"counted, then new ranges", newRanges, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			alpha := e.site(branch.Main, "alpha")
			e.endpoint()
			p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
			e.fromPool(branch.Main, p.ID, "v", alpha.ID, "user") // 1
			e.given(branch.Main, "w", alpha.ID, "user", 50)

			writer, writes := e.proxied(true)
			folder, folds := e.proxied(false)
			// The folding service holds main's schema as it is now, as a
			// process not told yet of a schema loaded elsewhere does.
			if _, err := folder.branches.Schema(t.Context(), branch.Main); err != nil {
				t.Fatal(err)
			}
			written := writes.HoldAnswer(c.held)
			fold := func() error { return folder.svc.fold(context.Background(), folder.poolRow(p)) }
			var foldDone <-chan struct{}
			var foldErr *error
			counted := folds.HoldAnswer("DELETE FROM number_division_dirty")
			if c.foldFirst {
				foldDone, foldErr = goDo(fold)
				reached(t, counted, "the fold's count")
			} else {
				counted.Release()
			}
			changeDone, changeErr := goDo(func() error { return c.run(writer, p, alpha.ID) })
			e.waitFor("the change", written.Reached(), changeDone)
			if c.foldFirst {
				counted.Release()
			} else {
				foldDone, foldErr = goDo(fold)
			}
			e.waitFor("the fold", foldDone)
			written.Release()
			finished(t, changeDone, changeErr, "the change")
			finished(t, foldDone, foldErr, "the fold")

			// A service of its own reads the schema as it is now.
			r := c.ranges
			usageChecker(t, openEnv(t, e.url), p, &r)("after the change and the fold")
		})
	}
}

// TestDivisionLabelFollowsABranchsSite: a site made on a branch labels
// its division; renamed on that branch (its version rewritten in place),
// the division's kept label follows.
func TestDivisionLabelFollowsABranchsSite(t *testing.T) {
	e := newEnv(t)
	ranges := []store.NumberRange{{Start: 1, End: 99, Weight: 1}}
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	step := usageChecker(t, e, p, &ranges)
	e.endpoint()
	e.newBranch("b1")
	gamma := e.site("b1", "gamma")
	e.fromPool("b1", p.ID, "x", gamma.ID, "user")
	step("a site of a branch")
	if _, err := e.branches.UpdateObject(t.Context(), operator, "b1", gamma.ID, branch.ObjectInput{Attributes: map[string]any{"name": "delta"}}); err != nil {
		t.Fatal(err)
	}
	step("the site renamed on its branch")
}

// TestDivisionLabelsAfterASchemaLoadedElsewhere: a service that was not
// told yet of a label template loaded by another process folds the marks
// the load left: it labels with the template the database holds, not the
// one it cached.
func TestDivisionLabelsAfterASchemaLoadedElsewhere(t *testing.T) {
	e := newEnv(t)
	ranges := []store.NumberRange{{Start: 1, End: 99, Weight: 1}}
	alpha := e.site(branch.Main, "alpha")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	e.fromPool(branch.Main, p.ID, "v", alpha.ID, "user")
	// Without a URL, this service is told of no other's change.
	folder, _ := e.proxied(false)
	usageChecker(t, folder, p, &ranges)("counted")
	e.load(branch.Main, siteTemplate)
	if err := folder.svc.fold(t.Context(), folder.poolRow(p)); err != nil {
		t.Fatal(err)
	}
	usageChecker(t, openEnv(t, e.url), p, &ranges)("a label template loaded elsewhere")
}
