package store_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestShippedMigrationsUnchanged compares every migration with the SHA-256
// recorded for it in migrations.sum (sha256sum's format). A migration that
// has shipped is never edited: a database that ran it keeps what it ran, so
// a change goes into a new migration. Adding one means recording it:
//
//	cd internal/store/migrations && sha256sum NNNN_name.sql >> ../migrations.sum
func TestShippedMigrationsUnchanged(t *testing.T) {
	f, err := os.Open("migrations.sum")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	recorded := map[string]string{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		sum, name, ok := strings.Cut(scanner.Text(), "  ")
		if !ok {
			t.Fatalf("migrations.sum: %q is not a line of sha256sum", scanner.Text())
		}
		recorded[name] = sum
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}

	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
		content, err := os.ReadFile("migrations/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(content)
		want, ok := recorded[e.Name()]
		switch {
		case !ok:
			t.Errorf("migration %s has no sum in migrations.sum: record it (cd internal/store/migrations && sha256sum %s >> ../migrations.sum)", e.Name(), e.Name())
		case hex.EncodeToString(sum[:]) != want:
			t.Errorf("migration %s differs from the one recorded in migrations.sum: a shipped migration is never edited; undo the edit and write a new migration", e.Name())
		}
	}
	for name := range recorded {
		if !slices.Contains(files, name) {
			t.Errorf("migrations.sum records %s, which is not in migrations/: a shipped migration is never removed", name)
		}
	}
}
