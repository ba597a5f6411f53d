package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// TestExactFigures: every figure of a usage has its BigInt field,
// sizeExact, usedExact and freeExact, a decimal string equal to the Int
// field, which answers as it did; the history's points likewise.
func TestExactFigures(t *testing.T) {
	e := newEnv(t)
	e.seed()
	e.ok("acme", attachInterface, nil, "namespace", "acme/prod", "vpc", "main", "subnet", "web", "uid", "vm-1", "hostname", "vm-1", "nic", 0)
	var subnet string
	if err := e.db.Get(&subnet, `SELECT uid FROM subnets WHERE name = 'web'`); err != nil {
		t.Fatal(err)
	}
	hour := time.Now().UTC().Truncate(time.Hour).Add(-time.Hour)
	if err := store.RecordUsage(context.Background(), e.db, []store.UsageRecord{{ObjectUID: subnet, ObjectKind: "subnet", Used: 1, Size: 253}}, hour, time.Time{}); err != nil {
		t.Fatal(err)
	}
	res := e.query("acme", `{ vpc(namespace: "acme/prod", name: "main") { subnets { usage {
		size sizeExact used usedExact free freeExact utilization history { size sizeExact used usedExact } } } } }`)
	if len(res.Errors) > 0 {
		t.Fatalf("answered errors %s", res.body)
	}
	// The exact figures are JSON strings; the Int ones numbers, as before.
	want := `{"vpc":{"subnets":[{"usage":{"size":253,"sizeExact":"253","used":1,"usedExact":"1","free":252,"freeExact":"252",` +
		`"utilization":0.3952569169960474,"history":[{"size":253,"sizeExact":"253","used":1,"usedExact":"1"}]}}]}}`
	if got := compact(t, res.Data); got != want {
		t.Errorf("the usage of web is\n%s, want\n%s", got, want)
	}
}

// compact is the JSON data without spaces, in the answer's order.
func compact(t *testing.T, data json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
