package reliability

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"pivirt.hu/ipam/internal/store"
)

// retryPause is how long a claimer waits before asking again after an
// answer that is not a confirmation.
const retryPause = 50 * time.Millisecond

// claimLoad runs claimers, each attaching the interfaces of one VM after
// the other, and remembers every answer. A claimer asks for a VM until it
// is confirmed, as a real client does, then goes on with the next VM.
type claimLoad struct {
	client *http.Client
	token  string
	// base chooses the process of a claimer's attempt.
	base func(claimer, attempt int) string

	stop chan struct{}
	wg   sync.WaitGroup

	mu        sync.Mutex
	confirmed map[string]string // VM → address
	pending   map[string]bool   // VMs asked for and not confirmed
	outcomes  map[outcome]int
	slowest   time.Duration
	wrong     []string // answers no test accepts
}

// startClaims starts claimers claimers of at most maxVMs VMs each.
func startClaims(client *http.Client, token string, claimers, maxVMs int, base func(claimer, attempt int) string) *claimLoad {
	l := &claimLoad{
		client: client, token: token, base: base, stop: make(chan struct{}),
		confirmed: map[string]string{}, pending: map[string]bool{}, outcomes: map[outcome]int{},
	}
	for c := range claimers {
		l.wg.Go(func() { l.claimer(c, maxVMs) })
	}
	return l
}

func (l *claimLoad) claimer(c, maxVMs int) {
	attempt := 0
	for i := range maxVMs {
		vm := fmt.Sprintf("vm-%d-%d", c, i)
		for {
			select {
			case <-l.stop:
				return
			default:
			}
			r := graphql(context.Background(), l.client, l.base(c, attempt), l.token, attachInterface, map[string]any{"vm": vm})
			attempt++
			if l.record(vm, r) {
				break
			}
			time.Sleep(retryPause)
		}
	}
}

// record notes the answer to a claim of vm and reports whether it was
// confirmed.
func (l *claimLoad) record(vm string, r gqlResult) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.outcomes[r.outcome]++
	l.slowest = max(l.slowest, r.took)
	switch r.outcome {
	case confirmed:
		a := r.address("attachInterface")
		if prev, ok := l.confirmed[vm]; ok && prev != a {
			l.wrong = append(l.wrong, fmt.Sprintf("%s was confirmed %s, then %s", vm, prev, a))
		}
		l.confirmed[vm] = a
		delete(l.pending, vm)
		return true
	case failed:
		l.wrong = append(l.wrong, fmt.Sprintf("claim of %s: %v", vm, r))
	}
	if _, ok := l.confirmed[vm]; !ok {
		l.pending[vm] = true
	}
	return false
}

// finish stops the claimers and waits for them.
func (l *claimLoad) finish() {
	close(l.stop)
	l.wg.Wait()
}

// count returns how many claims were confirmed so far.
func (l *claimLoad) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.confirmed)
}

// report logs the outcomes and fails the test on any answer no test
// accepts or on a request that took longer than limit.
func (l *claimLoad) report(t *testing.T, limit time.Duration) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Logf("claims: %d confirmed, %d unavailable, %d dropped, %d failed; %d VMs confirmed, %d pending; slowest answer %v",
		l.outcomes[confirmed], l.outcomes[unavailable], l.outcomes[dropped], l.outcomes[failed],
		len(l.confirmed), len(l.pending), l.slowest.Round(time.Millisecond))
	for _, w := range l.wrong[:min(len(l.wrong), 10)] {
		t.Errorf("wrong answer: %s", w)
	}
	if l.slowest > limit {
		t.Errorf("a claim took %v, more than %v: a request hung", l.slowest, limit)
	}
}

// retryAll asks again, through base, for every VM the claimers asked for:
// a confirmed VM must get the same address, a pending one gets one. Each
// is asked until confirmed, for up to timeout in all.
func (l *claimLoad) retryAll(t *testing.T, base string, timeout time.Duration) {
	t.Helper()
	l.mu.Lock()
	vms := make([]string, 0, len(l.confirmed)+len(l.pending))
	for vm := range l.confirmed {
		vms = append(vms, vm)
	}
	for vm := range l.pending {
		vms = append(vms, vm)
	}
	l.mu.Unlock()
	sort.Strings(vms)
	deadline := time.Now().Add(timeout)
	var wg sync.WaitGroup
	work := make(chan string)
	for range 8 {
		wg.Go(func() {
			for vm := range work {
				for !l.record(vm, graphql(t.Context(), l.client, base, l.token, attachInterface, map[string]any{"vm": vm})) {
					if time.Now().After(deadline) {
						t.Errorf("%s got no address by retrying for %v", vm, timeout)
						break
					}
					time.Sleep(retryPause)
				}
			}
		})
	}
	for _, vm := range vms {
		work <- vm
	}
	close(work)
	wg.Wait()
}

// checkStored compares the database with what the claimers were told: one
// allocation per VM, at the address confirmed to it, no address twice, no
// other allocation of a VM, and exactly one audit entry per allocation.
func (l *claimLoad) checkStored(t *testing.T, db *store.DB) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pending) > 0 {
		t.Errorf("%d VMs never got an address", len(l.pending))
	}
	var rows []struct {
		Name    string `db:"name"`
		Owner   string `db:"owner_uid"`
		Address string `db:"address"`
	}
	if err := db.SelectContext(t.Context(), &rows, `SELECT name, owner_uid, host(address) AS address FROM allocations
		WHERE owner_kind = 'VirtualMachine' ORDER BY address`); err != nil {
		t.Fatal(err)
	}
	byAddress, byOwner := map[string]string{}, map[string]string{}
	for _, r := range rows {
		if other, dup := byAddress[r.Address]; dup {
			t.Errorf("DUPLICATE: %s is held by %s and %s", r.Address, other, r.Owner)
		}
		if other, dup := byOwner[r.Owner]; dup {
			t.Errorf("%s holds %s and %s", r.Owner, other, r.Address)
		}
		byAddress[r.Address], byOwner[r.Owner] = r.Owner, r.Address
	}
	lost := 0
	for vm, a := range l.confirmed {
		if byOwner[vm] != a {
			lost++
			if lost <= 10 {
				t.Errorf("LOST: %s was confirmed %s, the database says %q", vm, a, byOwner[vm])
			}
		}
	}
	if len(rows) != len(l.confirmed) {
		t.Errorf("%d allocations of VMs in the database, %d VMs confirmed", len(rows), len(l.confirmed))
	}
	var unaudited []string
	if err := db.SelectContext(t.Context(), &unaudited, `SELECT a.name FROM allocations a
		WHERE a.owner_kind = 'VirtualMachine' AND (SELECT count(*) FROM audit_log l
			WHERE l.action = 'allocate' AND l.object_kind = 'IPAllocation' AND l.object_name = a.name AND l.namespace = a.namespace) <> 1`); err != nil {
		t.Fatal(err)
	}
	if len(unaudited) > 0 {
		t.Errorf("allocations without exactly one audit entry: %s", strings.Join(unaudited[:min(len(unaudited), 10)], ", "))
	}
	var audited int
	if err := db.GetContext(t.Context(), &audited, `SELECT count(*) FROM audit_log
		WHERE action = 'allocate' AND object_kind = 'IPAllocation' AND after->'owner'->>'kind' = 'VirtualMachine'`); err != nil {
		t.Fatal(err)
	}
	if audited != len(rows) {
		t.Errorf("%d audit entries of VM allocations for %d allocations: a change is half stored", audited, len(rows))
	}
	t.Logf("database: %d VM allocations, %d duplicates, %d confirmed claims lost", len(rows), len(rows)-len(byAddress), lost)
}
