package branch

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/audit"
	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/store"
)

// Main is the name of the default branch, which always exists.
const Main = "main"

// MaxBranchNameLength bounds a branch's name, in bytes.
const MaxBranchNameLength = 64

// A branch's name: letters, digits, '.', '_', '-', in segments separated by
// '/' (feature/vlans), each starting with a letter or a digit, so that
// /graphql/<branch> is a path no client or proxy rewrites.
var branchNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$`)

// A Branch is a name and a branch point: it sees main as it was at the
// point, plus its own changes. main, the default branch, has no point.
type Branch struct {
	ID        int64  `json:"id"`
	Name      string `json:"name"`
	IsDefault bool   `json:"is_default"` // main
	// BranchedFrom is when the branch point was set: when the branch was
	// created, or last rebased or merged; main's creation on main.
	BranchedFrom time.Time `json:"branched_from"`
	// Point is the number of the last change of main the branch sees
	// (changes are numbered across branches, in order, not densely); 0 on
	// main.
	Point int64 `json:"point"`
	// OwnSchema says whether the branch changed the schema since its branch
	// point.
	OwnSchema bool      `json:"own_schema"`
	CreatedAt time.Time `json:"created_at"`
	CreatedBy string    `json:"created_by"`
	// Merged is the branch's last merge into main; nil when it was never
	// merged. A merge leaves the branch in place, rebased onto main.
	Merged *Merge `json:"merged,omitempty"`
	// Changed says that the branch holds changes of its own (objects or
	// schema) that a merge would bring to main. Branches, Branch and
	// BranchDiff read it; the answers of the changes of branches say it
	// as they leave the branch.
	Changed bool `json:"changed"`
}

// A Merge is when and by whom a branch was merged into main.
type Merge struct {
	At time.Time `json:"at"`
	By string    `json:"by"`
}

// The states of a branch (Branch.State).
const (
	// StateOpen: the branch holds changes main does not have, or was never
	// merged.
	StateOpen = "open"
	// StateMerged: the branch was merged into main and changed nothing
	// since.
	StateMerged = "merged"
)

// State is StateMerged when the branch was merged and holds no change of
// its own since, else StateOpen (main too).
func (b Branch) State() string {
	if b.Merged != nil && !b.Changed {
		return StateMerged
	}
	return StateOpen
}

func branchOf(r store.BranchRow) Branch {
	b := Branch{ID: r.ID, Name: r.Name, IsDefault: r.ID == store.MainBranchID, BranchedFrom: r.BranchedAt, Point: r.BranchedFrom,
		OwnSchema: r.SchemaSeq != 0 && r.ID != store.MainBranchID, CreatedAt: r.CreatedAt, CreatedBy: r.CreatedBy, Changed: r.SchemaSeq != 0 && r.ID != store.MainBranchID}
	if !r.MergedAt.IsZero() {
		b.Merged = &Merge{At: r.MergedAt, By: r.MergedBy}
	}
	return b
}

// branchStatusOf is the branch of s, with whether it changed anything.
func branchStatusOf(s store.BranchStatus) Branch {
	b := branchOf(s.BranchRow)
	b.Changed = s.Changed
	return b
}

// ValidateBranchName says what is wrong with a name for a new branch, as
// an *refusal.InvalidError of the field "name", or returns nil.
func ValidateBranchName(name string) error {
	switch {
	case name == "":
		return invalid("name", "name is required, such as add-vlans")
	case len(name) > MaxBranchNameLength:
		return invalid("name", "name is %d characters, more than %d", len(name), MaxBranchNameLength)
	case !branchNamePattern.MatchString(name) || strings.Contains(name, ".."):
		return invalid("name", "name %s is not a branch's name: letters, digits, '.', '_' and '-', in segments separated by '/', each starting with a letter or a digit", shown(name))
	}
	return nil
}

// Branches returns every branch, main first, then by name. Tenants see
// none.
func (s *Service) Branches(ctx context.Context, actor auth.Actor) ([]Branch, error) {
	if !actor.IsOperator() {
		return nil, nil
	}
	rows, err := store.BranchStatuses(ctx, s.db)
	if err != nil {
		return nil, err
	}
	out := make([]Branch, len(rows))
	for i, r := range rows {
		out[i] = branchStatusOf(r)
	}
	return out, nil
}

// Branch returns the branch called name; refusal.ErrNotFound when there is none,
// or to a tenant.
func (s *Service) Branch(ctx context.Context, actor auth.Actor, name string) (Branch, error) {
	if !actor.IsOperator() {
		return Branch{}, notFound("branch %s", name)
	}
	row, err := store.BranchStatusOf(ctx, s.db, name)
	if errors.Is(err, store.ErrNotFound) {
		return Branch{}, notFound("branch %s", name)
	}
	if err != nil {
		return Branch{}, err
	}
	return branchStatusOf(row), nil
}

// CreateBranch creates the branch name at main's head: it sees main as it
// is now. It costs one row whatever the database holds. A name in use is a
// *refusal.ConflictError; a malformed one an *refusal.InvalidError.
func (s *Service) CreateBranch(ctx context.Context, actor auth.Actor, name string) (Branch, error) {
	if !actor.IsOperator() {
		return Branch{}, notFound("branch %s", name)
	}
	if err := ValidateBranchName(name); err != nil {
		return Branch{}, err
	}
	var b Branch
	err := s.inTx(ctx, func(tx *store.Tx) error {
		// main held alone: every change of main numbered below the new
		// branch point is committed, and none is made meanwhile.
		if _, err := store.LockBranch(ctx, tx, Main, store.ExclusiveBranch, store.ObjectLocks{}); err != nil {
			return err
		}
		row, err := store.InsertBranch(ctx, tx, name, actor.Name)
		if errors.Is(err, store.ErrObjectExists) {
			return &refusal.ConflictError{Field: "name", Message: "branch " + name + " exists"}
		}
		if err != nil {
			return err
		}
		b = branchOf(row)
		return store.InsertAudit(ctx, tx, branchAudit(actor, audit.Create, b))
	})
	return b, err
}

// DeleteBranch deletes the branch name and discards its changes: its
// objects' versions, unique values and schema. main cannot be deleted.
// It holds the branch alone, then main (the order merges lock in): what
// main's writes keep because a branch sees it (a number pool's ended
// holdings) is decided by main's writes under way before the branch goes,
// and by those after without it, so the records told of the deletion see
// every such row. A deadlock that refuses it (its release of numbers
// meeting another change's locks) is met by trying again (change).
func (s *Service) DeleteBranch(ctx context.Context, actor auth.Actor, name string) (Branch, error) {
	if !actor.IsOperator() {
		return Branch{}, notFound("branch %s", name)
	}
	if name == Main {
		return Branch{}, invalid("name", "branch main is the default branch; it cannot be deleted")
	}
	var b Branch
	err := s.change(ctx, func(tx *store.Tx) error {
		row, err := store.LockBranch(ctx, tx, name, store.ExclusiveBranch, store.ObjectLocks{})
		if errors.Is(err, store.ErrNotFound) {
			return notFound("branch %s", name)
		}
		if err != nil {
			return err
		}
		b = branchOf(row)
		if _, err := store.LockBranch(ctx, tx, Main, store.ExclusiveBranch, store.ObjectLocks{}); err != nil {
			return err
		}
		if err := s.record(ctx, tx, ObjectsChange{Branch: b, Actor: actor.Name, Deleted: true}); err != nil {
			return err
		}
		if err := store.DeleteBranch(ctx, tx, row.ID); err != nil {
			return err
		}
		return store.InsertAudit(ctx, tx, branchAudit(actor, audit.Delete, b))
	})
	if err != nil {
		return Branch{}, err
	}
	s.forget(b.ID)
	return b, nil
}

// branchAudit is the audit entry of the creation or the deletion (before
// the branch, gone) of the branch b.
func branchAudit(actor auth.Actor, action string, b Branch) store.AuditEntry {
	e := store.AuditEntry{Actor: actor.Name, Action: action, ObjectKind: audit.KindBranch, ObjectName: b.Name, Branch: b.Name}
	doc := store.JSON(audit.Branch{ID: b.ID, Name: b.Name, IsDefault: b.IsDefault, BranchedFrom: b.BranchedFrom, Point: b.Point,
		OwnSchema: b.OwnSchema, CreatedAt: b.CreatedAt, CreatedBy: b.CreatedBy})
	if action == audit.Delete {
		e.Before = doc
	} else {
		e.After = doc
	}
	return e
}
