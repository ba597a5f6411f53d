package numbers

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/store"
)

// usageChecker returns a check that the pool's divisions by usage, as
// number_division_usage keeps them, are what the branches show, counted
// from number_holdings, with *ranges the pool's ranges.
func usageChecker(t *testing.T, e *env, p Pool, ranges *[]store.NumberRange) func(name string) {
	ctx := t.Context()
	return func(name string) {
		t.Helper()
		r := *ranges
		want := map[string]int64{}
		held, err := store.NumberDivisions(ctx, e.db, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range held {
			want[string(d.Division)] += 0
			for _, n := range d.Numbers {
				if n >= r[0].Start && n <= r[0].End {
					want[string(d.Division)]++
				}
			}
		}
		page, total := e.divisionPage(p, store.DivisionPageQuery{Entry: -1, Limit: 1000})
		got := map[string]int64{}
		for i, d := range page {
			got[string(d.Division)] = d.Used
			if i > 0 && d.Used > page[i-1].Used {
				t.Errorf("%s: %s (%d) after %s (%d): not most used first", name, d.Division, d.Used, page[i-1].Division, page[i-1].Used)
			}
		}
		if !maps.Equal(got, want) || total != len(want) {
			t.Errorf("%s: divisions by usage %v (%d in all), want %v", name, got, total, want)
		}
		least, _ := e.divisionPage(p, store.DivisionPageQuery{Entry: -1, Reverse: true, Limit: 1})
		if len(page) > 0 && (len(least) != 1 || least[0].Used != page[len(page)-1].Used) {
			t.Errorf("%s: least used first %v, want one of %d", name, least, page[len(page)-1].Used)
		}
		// The labels kept are those the divisions show now.
		main, err := e.branches.Schema(ctx, branch.Main)
		if err != nil {
			t.Fatal(err)
		}
		row := e.poolRow(p)
		for _, d := range page {
			var kept []string
			if err := e.db.GetContext(ctx, (*pq.StringArray)(&kept), `SELECT labels FROM number_division_usage WHERE pool_id = $1 AND division = $2::jsonb`, p.ID, string(d.Division)); err != nil {
				t.Fatal(err)
			}
			var shown []string
			for _, en := range e.svc.division(ctx, operator, branch.Main, main, row, d.Division).Entries {
				shown = append(shown, en.DisplayLabel)
			}
			if !slices.Equal(kept, shown) {
				t.Errorf("%s: division %s keeps the labels %q, shows %q", name, d.Division, kept, shown)
			}
		}
		var marks int
		if err := e.db.GetContext(ctx, &marks, `SELECT count(*) FROM number_division_dirty WHERE pool_id = $1`, p.ID); err != nil || marks != 0 {
			t.Errorf("%s: %d marks left after a read (%v)", name, marks, err)
		}
	}
}

// poolRow is the pool's row in the database.
func (e *env) poolRow(p Pool) store.NumberPoolRow {
	e.t.Helper()
	row, err := store.NumberPool(e.t.Context(), e.db, p.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return row
}

// divisionPage folds the pool's marks and reads a page of its divisions.
func (e *env) divisionPage(p Pool, q store.DivisionPageQuery) ([]store.DivisionUsage, int) {
	e.t.Helper()
	if err := e.svc.fold(e.t.Context(), e.poolRow(p)); err != nil {
		e.t.Fatal(err)
	}
	page, total, err := store.DivisionPage(e.t.Context(), e.db, p.ID, q)
	if err != nil {
		e.t.Fatal(err)
	}
	return page, total
}

// TestDivisionUsageFollowsEveryChange: the usage of divisions that a
// pool's page orders by (kept in number_division_usage, folded from the
// marks writers leave) equals what the branches show, counted from
// number_holdings, after every kind of change: claims, numbers given
// twice or outside the ranges, moves, deletions, a branch's own version
// hiding main's, main's history a branch still sees, rebase, merge, branch
// deletion, new ranges, and the pool's deletion.
func TestDivisionUsageFollowsEveryChange(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	ranges := []store.NumberRange{{Start: 1, End: 99, Weight: 1}}
	step := usageChecker(t, e, p, &ranges)
	step("a new pool")
	v, _ := e.fromPool(branch.Main, p.ID, "v", a.ID, "user") // A 1
	w, _ := e.fromPool(branch.Main, p.ID, "w", a.ID, "user") // A 2
	e.fromPool(branch.Main, p.ID, "x", b.ID, "user")         // B 1
	step("claims")
	e.given(branch.Main, "twice", a.ID, "user", 1)
	step("a number given twice")
	outside := e.given(branch.Main, "outside", b.ID, "user", 500)
	step("a number outside the ranges")
	if _, err := e.branches.DeleteObject(ctx, operator, branch.Main, outside.ID); err != nil {
		t.Fatal(err)
	}
	step("a deletion")
	e.newBranch("b1")
	e.fromPool("b1", p.ID, "y", b.ID, "user") // B 2 on b1
	step("a claim on a branch")
	if _, err := e.svc.UpdateObject(ctx, operator, "b1", v.ID, branch.ObjectInput{Attributes: map[string]any{"vlan_id": nil},
		Relationships: map[string][]string{"site": {b.ID}}}, []FromPool{{Attribute: "vlan_id", Pool: p.ID}}); err != nil {
		t.Fatal(err)
	}
	step("a branch's own version of main's object, moved")
	if _, err := e.branches.DeleteObject(ctx, operator, branch.Main, v.ID); err != nil {
		t.Fatal(err)
	}
	step("main deletes an object the branch has its own version of")
	if _, err := e.branches.UpdateObject(ctx, operator, branch.Main, w.ID, branch.ObjectInput{Attributes: map[string]any{"vlan_id": int64(50)}}); err != nil {
		t.Fatal(err)
	}
	step("main changes a number the branch still sees")
	if _, err := e.branches.DeleteObject(ctx, operator, "b1", v.ID); err != nil {
		t.Fatal(err)
	}
	step("the branch deletes its version")
	if _, err := e.branches.RebaseBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	step("a rebase")
	if _, err := e.branches.MergeBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	step("a merge")
	e.newBranch("b2")
	e.fromPool("b2", p.ID, "z", a.ID, "user")
	if _, err := e.branches.UpdateObject(ctx, operator, branch.Main, w.ID, branch.ObjectInput{Attributes: map[string]any{"vlan_id": int64(60)}}); err != nil {
		t.Fatal(err)
	}
	step("a second branch")
	if _, err := e.branches.DeleteBranch(ctx, operator, "b2"); err != nil {
		t.Fatal(err)
	}
	step("the branch deleted")
	ranges = []store.NumberRange{{Start: 1, End: 1, Weight: 1}}
	if _, err := e.svc.UpdatePool(ctx, operator, p.ID, PoolUpdate{Ranges: []Range{{Start: 1, End: 1, Weight: 1}}}); err != nil {
		t.Fatal(err)
	}
	step("new ranges")
	if _, err := e.svc.DeletePool(ctx, operator, p.ID); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := e.db.GetContext(ctx, &left, `SELECT (SELECT count(*) FROM number_division_dirty WHERE pool_id = $1)
		+ (SELECT count(*) FROM number_division_usage WHERE pool_id = $1) + (SELECT count(*) FROM number_division_totals WHERE pool_id = $1)`, p.ID); err != nil || left != 0 {
		t.Errorf("%d rows of the deleted pool's usage left (%v)", left, err)
	}
}

// TestDivisionUsageDivisionEmptied: a fold that only drops divisions (their
// last numbers freed) lowers the pool's count of divisions.
func TestDivisionUsageDivisionEmptied(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	ranges := []store.NumberRange{{Start: 1, End: 99, Weight: 1}}
	step := usageChecker(t, e, p, &ranges)
	e.fromPool(branch.Main, p.ID, "v", a.ID, "user")
	x, _ := e.fromPool(branch.Main, p.ID, "x", b.ID, "user")
	step("claims in two sites")
	if _, err := e.branches.DeleteObject(ctx, operator, branch.Main, x.ID); err != nil {
		t.Fatal(err)
	}
	step("site B's only VLAN deleted")
}

// TestDivisionUsageFollowsWhatBranchesSee: main's ended holdings count
// while a branch shows them. Each step changes what a division shows
// without any holding of that division being written: main moving an
// object that a branch hides with its own version, a branch rebased or
// deleted that showed main's old holding, a branch's version of the object
// written in another division.
func TestDivisionUsageFollowsWhatBranchesSee(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	ranges := []store.NumberRange{{Start: 1, End: 99, Weight: 1}}
	step := usageChecker(t, e, p, &ranges)
	update := func(branchName, id string, in branch.ObjectInput) {
		t.Helper()
		if _, err := e.branches.UpdateObject(ctx, operator, branchName, id, in); err != nil {
			t.Fatal(err)
		}
	}
	renumber := func(branchName, id string, n int64) {
		update(branchName, id, branch.ObjectInput{Attributes: map[string]any{"vlan_id": n}})
	}
	toSiteB := branch.ObjectInput{Relationships: map[string][]string{"site": {b.ID}}}

	u, _ := e.fromPool(branch.Main, p.ID, "u", a.ID, "user") // A 1
	e.newBranch("b1")
	renumber("b1", u.ID, 30)
	step("a branch renumbers its version of main's object")
	update(branch.Main, u.ID, toSiteB) // A 1 ended, hidden on b1 by A 30
	step("main moves the object the branch hid")

	o, _ := e.fromPool(branch.Main, p.ID, "o", a.ID, "user")
	if _, err := e.branches.RebaseBranch(ctx, operator, "b1"); err != nil {
		t.Fatal(err)
	}
	e.newBranch("b2")
	renumber("b1", o.ID, 31)
	update(branch.Main, o.ID, toSiteB) // o's A number ended: hidden on b1, shown on b2
	step("main moves an object one branch hides and another shows")
	if _, err := e.branches.RebaseBranch(ctx, operator, "b2"); err != nil {
		t.Fatal(err)
	}
	step("the branch that showed it is rebased")

	q, _ := e.fromPool(branch.Main, p.ID, "q", a.ID, "user")
	e.newBranch("b3")
	e.newBranch("b4")
	renumber("b3", q.ID, 32)
	update(branch.Main, q.ID, toSiteB) // q's A number: hidden on b3, shown on b4
	step("main moves an object one new branch hides and another shows")
	if _, err := e.branches.DeleteBranch(ctx, operator, "b4"); err != nil {
		t.Fatal(err)
	}
	step("the branch that showed it is deleted")

	r, _ := e.fromPool(branch.Main, p.ID, "r", a.ID, "user")
	e.newBranch("b5")
	renumber(branch.Main, r.ID, 40) // r's old number ended, shown on b5
	step("main renumbers an object a branch shows")
	update("b5", r.ID, toSiteB)
	step("the branch moves its version of it")
}

// TestDivisionUsageUnderConcurrentFolds: writers claiming in several
// divisions while readers fold the marks: once the writers are done, one
// more read counts every division exactly (a fold never overwrites a later
// fold's count, and a mark committed after a fold's snapshot waits for the
// next one).
func TestDivisionUsageUnderConcurrentFolds(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	var sites []string
	for i := range 5 {
		sites = append(sites, e.site(branch.Main, fmt.Sprintf("site-%d", i)).ID)
	}
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	ranges := []store.NumberRange{{Start: 1, End: 99, Weight: 1}}
	var writers, readers sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 8)
	for w := range 4 {
		writers.Go(func() {
			for i := range 25 {
				site := sites[(w+i)%len(sites)]
				if _, err := e.svc.CreateObject(ctx, operator, branch.Main, "IpamVLAN", e.vlanInput(fmt.Sprint("v", w, "-", i), site, "user", nil),
					[]FromPool{{Attribute: "vlan_id", Pool: p.ID}}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	folds := make([]int, 2)
	for r := range 2 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				row, err := store.NumberPool(ctx, e.db, p.ID)
				if err == nil {
					err = e.svc.fold(ctx, row)
				}
				if err == nil {
					_, _, err = store.DivisionPage(ctx, e.db, p.ID, store.DivisionPageQuery{Entry: -1, Limit: 10})
				}
				if err != nil {
					errs <- err
					return
				}
				folds[r]++
			}
		})
	}
	writers.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d and %d reads while 100 VLANs were created", folds[0], folds[1])
	usageChecker(t, e, p, &ranges)("after 100 concurrent claims and reads")
}

// TestDivisionUsageFoldedWithoutReads: the marks of every pool are folded
// by a serving process's rounds, whether or not a page is read.
func TestDivisionUsageFoldedWithoutReads(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a := e.site(branch.Main, "site-a")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	q := e.pool("VLAN IDs", []Range{{Start: 1, End: 99, Weight: 1}})
	e.fromPool(branch.Main, p.ID, "v", a.ID, "user")
	marked, err := store.MarkedNumberPools(ctx, e.db)
	if err != nil || !slices.Equal(marked, slices.Sorted(slices.Values([]string{p.ID, q.ID}))) {
		t.Fatalf("MarkedNumberPools = %v, %v; want both pools", marked, err)
	}
	if err := e.svc.foldAll(ctx); err != nil {
		t.Fatal(err)
	}
	if marked, err := store.MarkedNumberPools(ctx, e.db); err != nil || len(marked) != 0 {
		t.Fatalf("MarkedNumberPools after a round = %v, %v; want none", marked, err)
	}
	ranges := []store.NumberRange{{Start: 1, End: 99, Weight: 1}}
	usageChecker(t, e, p, &ranges)("folded by a round")
	usageChecker(t, e, q, &ranges)("folded by a round")
}

// TestDivisionPageFollowsPeers: a pool's divisions sorted and searched by
// their site's label follow the site's rename, a site made on a branch,
// and a new label template, without any VLAN written.
func TestDivisionPageFollowsPeers(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	alpha, beta := e.site(branch.Main, "alpha"), e.site(branch.Main, "beta")
	p := e.pool("VLAN IDs per site", []Range{{Start: 1, End: 99, Weight: 1}}, "site")
	e.fromPool(branch.Main, p.ID, "v", alpha.ID, "user")
	e.fromPool(branch.Main, p.ID, "w", beta.ID, "user")
	bySite := func(name string, q DivisionQuery, want ...string) {
		t.Helper()
		q.Sort = "site"
		d, err := e.svc.DivisionPage(ctx, operator, p.ID, q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range d.Divisions {
			got = append(got, x.DisplayLabel)
		}
		if !slices.Equal(got, want) || d.Count != len(want) {
			t.Errorf("%s: %q (%d in all), want %q", name, got, d.Count, want)
		}
	}
	bySite("two sites", DivisionQuery{}, "alpha", "beta")
	if _, err := e.branches.UpdateObject(ctx, operator, branch.Main, alpha.ID, branch.ObjectInput{Attributes: map[string]any{"name": "zulu"}}); err != nil {
		t.Fatal(err)
	}
	bySite("a site renamed", DivisionQuery{}, "beta", "zulu")
	bySite("a site renamed, searched", DivisionQuery{Search: "ZUL"}, "zulu")
	bySite("its old name searched", DivisionQuery{Search: "alpha"})
	bySite("a search of what LIKE reads as a pattern", DivisionQuery{Search: "%"})
	bySite("a search of another", DivisionQuery{Search: "b_ta"})
	bySite("a search of a site's id", DivisionQuery{Search: strings.ToUpper(beta.ID[:13])}, "beta")
	bySite("a search across two entries", DivisionQuery{Search: "beta\n" + beta.ID[:4]})
	e.newBranch("b1")
	gamma := e.site("b1", "gamma")
	e.fromPool("b1", p.ID, "x", gamma.ID, "user")
	bySite("a site of a branch", DivisionQuery{Reverse: true}, "zulu", "gamma", "beta")
	e.load(branch.Main, "version: '1.0'\nnodes:\n  - {name: Site, namespace: Location, display_label: 'Site {{ name__value }}', attributes: [{name: name, kind: Text, unique: true}]}\n")
	// b1 keeps its schema: gamma keeps its label there.
	bySite("a new label template", DivisionQuery{}, "gamma", "Site beta", "Site zulu")
	bySite("a new label template, searched", DivisionQuery{Search: "site "}, "Site beta", "Site zulu")
}

// TestDivisionUsageOfPoolsSharingAnAttribute: two pools on one attribute
// each count the divisions that hold their own numbers alone (the page's
// list): not those that hold only the other's, or numbers given outside
// its ranges; new ranges that take in a number given earlier count its
// division, though no page counted it before.
func TestDivisionUsageOfPoolsSharingAnAttribute(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	a, b, c := e.site(branch.Main, "site-a"), e.site(branch.Main, "site-b"), e.site(branch.Main, "site-c")
	pa := e.pool("A", []Range{{Start: 10, End: 19, Weight: 1}}, "site")
	pb := e.pool("B", []Range{{Start: 500, End: 509, Weight: 1}}, "site")
	rangesA := []store.NumberRange{{Start: 10, End: 19, Weight: 1}}
	rangesB := []store.NumberRange{{Start: 500, End: 509, Weight: 1}}
	e.fromPool(branch.Main, pa.ID, "a", a.ID, "user")
	e.fromPool(branch.Main, pb.ID, "b", b.ID, "user")
	e.given(branch.Main, "outside", c.ID, "user", 900)
	count := func(p Pool) int {
		t.Helper()
		d, err := e.svc.DivisionPage(ctx, operator, p.ID, DivisionQuery{})
		if err != nil {
			t.Fatal(err)
		}
		return d.Count
	}
	if count(pa) != 1 || count(pb) != 1 {
		t.Errorf("A lists %d divisions, B %d; want 1 each", count(pa), count(pb))
	}
	usageChecker(t, e, pa, &rangesA)("pool A")
	usageChecker(t, e, pb, &rangesB)("pool B")
	rangesA = []store.NumberRange{{Start: 10, End: 999, Weight: 1}}
	if _, err := e.svc.UpdatePool(ctx, operator, pa.ID, PoolUpdate{Ranges: []Range{{Start: 10, End: 999, Weight: 1}}}); err != nil {
		t.Fatal(err)
	}
	if count(pa) != 3 {
		t.Errorf("A lists %d divisions once its ranges take in 500 and 900, want 3", count(pa))
	}
	usageChecker(t, e, pa, &rangesA)("pool A widened")
}
