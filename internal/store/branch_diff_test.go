package store_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"pivirt.hu/ipam/internal/store"
)

// TestBranchMergesMigration: the migration that records each branch's
// last merge reads the branches merged before it from the audit log: the
// latest merge of each, and no merge of an earlier branch of the same name
// (deleted since).
func TestBranchMergesMigration(t *testing.T) {
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	before := slices.IndexFunc(entries, func(e os.DirEntry) bool { return strings.HasSuffix(e.Name(), "_branch_merges.sql") })
	if before < 0 {
		t.Fatal("no migration branch_merges")
	}
	db := migratedTo(t, before)
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, `
		INSERT INTO branches (name, branched_from, created_by, created_at) VALUES
			('merged', 1, 'op', now() - interval '3 days'), ('open', 2, 'op', now() - interval '3 days'),
			('again', 3, 'op', now() - interval '1 day');
		INSERT INTO audit_log (at, actor, action, object_kind, object_name, branch) VALUES
			(now() - interval '2 days', 'first', 'merge', 'Branch', 'merged', 'main'),
			(now() - interval '1 hour', 'second', 'merge', 'Branch', 'merged', 'main'),
			(now() - interval '1 hour', 'op', 'rebase', 'Branch', 'open', 'open'),
			(now() - interval '2 days', 'earlier', 'merge', 'Branch', 'again', 'main')`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	all, err := store.BranchStatuses(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range all {
		got = append(got, b.Name+" "+b.MergedBy)
	}
	if want := []string{"main ", "again ", "merged second", "open "}; !slices.Equal(got, want) {
		t.Errorf("merged by: %q, want %q", got, want)
	}
}
