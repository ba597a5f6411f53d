package graphql

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/graphql/engine"
	"pivirt.hu/ipam/internal/refusal"
)

// The branches, in Infrahub's form: the query Branch, and BranchCreate,
// BranchRebase, BranchMerge and BranchDelete answering {ok object}.
// Operators only: tenants are served no part of them.
const branchTypes = `
"A branch: a name and a branch point. It sees main as it was at its branch point, plus its own changes of objects and of the schema of kinds. main is the default branch."
type Branch {
	id: ID!
	name: String!
	"When the branch point was set: when the branch was created, or last rebased or merged (RFC 3339)."
	branched_from: String!
	"Whether it is main."
	is_default: Boolean!
	"Whether the branch changed the schema of kinds since its branch point."
	has_schema_changes: Boolean!
	created_at: String!
	created_by: String!
}

input BranchCreateInput {
	"Letters, digits, '.', '_' and '-', in segments separated by '/' (add-vlans, feature/vlans)."
	name: String!
}

"A branch, by its name."
input BranchNameInput {
	name: String!
}

type BranchCreate {
	ok: Boolean!
	"The branch created."
	object: Branch
}

type BranchRebase {
	ok: Boolean!
	"The branch, with its new branch point."
	object: Branch
}

type BranchMerge {
	ok: Boolean!
	"The branch, rebased onto main as the merge left it."
	object: Branch
}

type BranchDelete {
	ok: Boolean!
	"The branch as it was before it was deleted."
	object: Branch
}
`

// A branchAnswer is what a mutation of a branch answers.
type branchAnswer struct{ branch branch.Branch }

func addBranches(b *engine.Builder, branches *branch.Service) {
	b.Types("branches", branchTypes)
	b.Query(`"The branches, main first, then by name; those of ids or of the name when given."
		Branch(ids: [ID!], name: String): [Branch!]!`,
		resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			all, err := branches.Branches(ctx, st.actor)
			if err != nil {
				return nil, err
			}
			ids, name := stringsArg(p.Args, "ids"), stringArg(p.Args, "name")
			return slices.DeleteFunc(all, func(b branch.Branch) bool {
				return ids != nil && !slices.Contains(ids, branchID(b)) || name != "" && b.Name != name
			}), nil
		}))
	mutations := []struct {
		sdl string
		do  func(ctx context.Context, st *requestState, name string) (branch.Branch, error)
	}{
		{`"Creates a branch at main's head: it sees main as it is now."
			BranchCreate(data: BranchCreateInput!): BranchCreate`, func(ctx context.Context, st *requestState, name string) (branch.Branch, error) {
			return branches.CreateBranch(ctx, st.actor, name)
		}},
		{`"Moves the branch point to main's head, keeping the branch's changes; refused, listing every conflict, when they conflict with main's."
			BranchRebase(data: BranchNameInput!): BranchRebase`, func(ctx context.Context, st *requestState, name string) (branch.Branch, error) {
			return branches.RebaseBranch(ctx, st.actor, name)
		}},
		{`"Applies the branch's changes (schema and objects) to main in one transaction, then rebases the branch onto main. Refused, main untouched, listing every element changed on both sides and every uniqueness constraint the result would violate."
			BranchMerge(data: BranchNameInput!): BranchMerge`, func(ctx context.Context, st *requestState, name string) (branch.Branch, error) {
			return branches.MergeBranch(ctx, st.actor, name)
		}},
		{`"Deletes the branch and discards its changes."
			BranchDelete(data: BranchNameInput!): BranchDelete`, func(ctx context.Context, st *requestState, name string) (branch.Branch, error) {
			return branches.DeleteBranch(ctx, st.actor, name)
		}},
	}
	for _, m := range mutations {
		b.Mutation(m.sdl, resolve(func(ctx context.Context, st *requestState, p engine.Params) (any, error) {
			br, err := m.do(ctx, st, stringArg(objectArg(p.Args, "data"), "name"))
			if err != nil {
				return nil, mergeRefusal(err)
			}
			return branchAnswer{br}, nil
		}))
	}
	addBranchFields(b)
}

func addBranchFields(b *engine.Builder) {
	properties(b, "Branch", map[string]func(branch.Branch) any{
		"id":                 func(b branch.Branch) any { return branchID(b) },
		"name":               func(b branch.Branch) any { return b.Name },
		"branched_from":      func(b branch.Branch) any { return timestamp(b.BranchedFrom) },
		"is_default":         func(b branch.Branch) any { return b.IsDefault },
		"has_schema_changes": func(b branch.Branch) any { return b.OwnSchema },
		"created_at":         func(b branch.Branch) any { return timestamp(b.CreatedAt) },
		"created_by":         func(b branch.Branch) any { return b.CreatedBy },
	})
	for _, typ := range []string{"BranchCreate", "BranchRebase", "BranchMerge", "BranchDelete"} {
		properties(b, typ, map[string]func(branchAnswer) any{
			"ok":     func(branchAnswer) any { return true },
			"object": func(a branchAnswer) any { return a.branch },
		})
	}
}

// branchID is the id of a branch as the API writes it.
func branchID(b branch.Branch) string {
	return strconv.FormatInt(b.ID, 10)
}

// mergeRefusal is a refused merge or rebase as the client reads it: the
// message lists everything in the way, and extensions.conflicts lists it
// again, one entry each; any other error is left as it is.
func mergeRefusal(err error) error {
	var m *branch.MergeError
	if !errors.As(err, &m) {
		return err
	}
	var conflicts []map[string]any
	for _, c := range m.Fields {
		conflicts = append(conflicts, map[string]any{"type": "field", "kind": c.Kind, "object": c.Object, "field": c.Field})
	}
	for _, c := range m.Elements {
		conflicts = append(conflicts, map[string]any{"type": "schema", "kind": c.Kind, "element": c.Element})
	}
	for _, c := range m.Unique {
		conflicts = append(conflicts, map[string]any{"type": "uniqueness", "kind": c.Kind, "constraint": c.Constraint, "objects": c.Objects,
			"message": "Violates uniqueness constraint '" + c.Constraint + "'"})
	}
	for _, c := range m.References {
		conflicts = append(conflicts, map[string]any{"type": "reference", "kind": c.Kind, "object": c.Object, "field": c.Field, "peer": c.Peer})
	}
	for _, c := range m.Invalid {
		conflicts = append(conflicts, map[string]any{"type": "invalid", "kind": c.Kind, "object": c.Object, "field": c.Field, "message": c.Message})
	}
	return &codedError{code: string(refusal.CodeConflict), message: m.Error(), details: map[string]any{"conflicts": conflicts}}
}
