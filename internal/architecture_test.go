// The imports point inward (docs/architecture.md): the enumerator knows
// nothing of storage, the domain nothing of the database driver, and the
// edges reach the database only through the domain.
package internal_test

import (
	"errors"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// An importRule refuses some imports of the packages in and under dirs
// (relative to the module's root), test files aside.
type importRule struct {
	dirs []string
	// refused reports why the package may not import path, or "".
	refused func(path string) string
}

var importRules = []importRule{
	{
		dirs: []string{"internal/candidates"},
		refused: func(path string) string {
			if standard(path) {
				return ""
			}
			return "the enumerator imports the standard library only: it builds for the browser (GOOS=js) and knows nothing of storage"
		},
	},
	{
		dirs: []string{"internal/claim"},
		refused: func(path string) string {
			if standard(path) || path == "pivirt.hu/ipam/internal/candidates" {
				return ""
			}
			return "the claim engine imports the standard library and internal/candidates only: each kind of space brings its store through its Claimant, so that addresses, numbers and the next kind share one loop"
		},
	},
	{
		dirs: []string{"internal/audit"},
		refused: func(path string) string {
			if standard(path) || path == "pivirt.hu/ipam/internal/audit" {
				return ""
			}
			return "the audit log's documents and sentences are pure: the standard library only, so that the store, the domains and the edges share them"
		},
	},
	{
		dirs: []string{"internal/schema"},
		refused: func(path string) string {
			if standard(path) || path == "go.yaml.in/yaml/v3" {
				return ""
			}
			return "the schema of kinds is pure: the standard library and YAML only, so that any edge and the browser can use it"
		},
	},
	{
		dirs: []string{"internal/usage"},
		refused: func(path string) string {
			if standard(path) || path == "pivirt.hu/ipam/internal/forecast" || path == "pivirt.hu/ipam/internal/candidates" {
				return ""
			}
			return "usage's figures, points, charts and forecasts are pure: the standard library, internal/forecast and internal/candidates (its exact counts) only, so that the store, both halves and the edges share them"
		},
	},
	{
		dirs: []string{"internal/numbers"},
		refused: func(path string) string {
			if path == "pivirt.hu/ipam/internal/ipam" {
				return "the number half does not import the IP half: what both share lives in internal/refusal, internal/usage and internal/search"
			}
			return ""
		},
	},
	{
		dirs: []string{"internal/ipam"},
		refused: func(path string) string {
			if path == "pivirt.hu/ipam/internal/numbers" {
				return "the IP half does not import the number half: what both share lives in internal/refusal, internal/usage and internal/search"
			}
			return ""
		},
	},
	{
		dirs: []string{"internal/ipam", "internal/branch", "internal/numbers", "internal/dashboard"},
		refused: func(path string) string {
			for _, driver := range []string{"database/sql", "github.com/jmoiron/sqlx", "github.com/lib/pq"} {
				if path == driver || strings.HasPrefix(path, driver+"/") {
					return "the domain speaks to the database through internal/store's types (store.DB, store.Tx, store.Ext, store.Listener), never the driver's"
				}
			}
			return ""
		},
	},
	{
		dirs: []string{"web", "internal/graphql", "cmd/ipam"},
		refused: func(path string) string {
			if path == "pivirt.hu/ipam/internal/store" {
				return "the edges go through the domain (internal/ipam, internal/auth), never to internal/store"
			}
			return ""
		},
	},
}

// standard reports whether path is a package of the standard library: its
// first element has no dot, as no module path's does.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// TestImportsPointInward fails on every import that breaks an importRule,
// naming the file that makes it.
func TestImportsPointInward(t *testing.T) {
	t.Parallel()
	for _, rule := range importRules {
		for _, dir := range rule.dirs {
			for _, pkg := range packagesUnder(t, filepath.Join("..", dir)) {
				for _, path := range pkg.Imports {
					why := rule.refused(path)
					if why == "" {
						continue
					}
					for _, pos := range pkg.ImportPos[path] {
						rel, err := filepath.Rel("..", pos.Filename)
						if err != nil {
							rel = pos.Filename
						}
						t.Errorf("%s:%d imports %s: %s", filepath.ToSlash(rel), pos.Line, path, why)
					}
				}
			}
		}
	}
}

// packagesUnder returns the packages in dir and its subfolders, read from
// their files without their tests.
func packagesUnder(t *testing.T, dir string) []*build.Package {
	t.Helper()
	var pkgs []*build.Package
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != dir && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if _, ok := errors.AsType[*build.NoGoError](err); ok {
			return nil
		}
		if err != nil {
			return err
		}
		pkgs = append(pkgs, pkg)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) == 0 {
		t.Fatalf("no Go package in %s", dir)
	}
	return pkgs
}

// TestArchitectureNamesEveryPackage: docs/architecture.md has a row of its
// table for every folder of Go code, so that a newcomer finds what each
// holds. The folder of this test, which holds nothing else, is named in the
// text.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != "..") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			dirs[filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(dirs, "internal")
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		if !strings.Contains(string(doc), "\n| `"+dir+"` |") {
			t.Errorf("docs/architecture.md has no row | `%s` | in its table of packages: add one saying what it holds", dir)
		}
	}
}
