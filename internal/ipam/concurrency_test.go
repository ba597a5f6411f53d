package ipam

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"pivirt.hu/ipam/internal/candidates"
	"pivirt.hu/ipam/internal/store"
)

// The concurrency tests run real goroutines and real processes against one
// database and count what they got: no address twice, no owner twice, and
// the taken set exactly the lowest candidates.

const (
	childEnv = "IPAM_TEST_CHILD" // "url first count workers": claim VMs vm-first… in subnet web
)

// setupSubnet makes a VPC with a subnet "web" of the given prefix.
func setupSubnet(t *testing.T, svc *Service, cidr string) {
	t.Helper()
	ctx := context.Background()
	if _, err := svc.CreateVPC(ctx, acme, CreateVPCInput{Namespace: "acme/prod", Name: "main", CIDR: "10.42.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateSubnet(ctx, acme, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: cidr}); err != nil {
		t.Fatal(err)
	}
}

func attachVM(ctx context.Context, svc *Service, i int) (Allocation, error) {
	return svc.AttachInterface(ctx, acme, AttachInterfaceInput{
		Namespace: "acme/prod", VPC: "main", Subnet: "web", VM: VMRef{UID: fmt.Sprintf("uid-%d", i), Hostname: fmt.Sprintf("vm-%d", i)},
	})
}

// checkLowest verifies what the database holds in subnet web: n
// allocations, one per owner, on the n lowest candidates.
func checkLowest(t *testing.T, db *store.DB, cidr string, n int) {
	t.Helper()
	var rows []struct {
		Address string `db:"address"`
		Owner   string `db:"owner_uid"`
	}
	if err := db.Select(&rows, `SELECT host(address) AS address, owner_uid FROM allocations a JOIN subnets s ON s.uid = a.subnet_uid WHERE s.name = 'web' ORDER BY a.address`); err != nil {
		t.Fatal(err)
	}
	addrs, owners := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		if addrs[r.Address] {
			t.Errorf("address %s is held twice", r.Address)
		}
		if owners[r.Owner] {
			t.Errorf("owner %s holds two addresses", r.Owner)
		}
		addrs[r.Address], owners[r.Owner] = true, true
	}
	if len(rows) != n {
		t.Errorf("%d allocations in the subnet, want %d", len(rows), n)
	}
	pool, _ := candidates.ParsePool(candidates.PoolSpec{CIDR: "10.42.0.0/16"})
	gw := netip.MustParsePrefix(cidr).Addr().Next()
	req, _ := pool.ParseRequest(candidates.RequestSpec{Within: cidr, Reserved: []string{gw.String()}})
	want := pool.Space(req).NextN(candidates.Set{}, n)
	for i, a := range want {
		if i < len(rows) && rows[i].Address != a.String() {
			t.Fatalf("the %d-th taken address is %s, want %s: the taken set is not the lowest candidates", i, rows[i].Address, a)
		}
	}
}

func TestConcurrentClaimsInOneProcess(t *testing.T) {
	svc, db, _ := newService(t)
	setupSubnet(t, svc, "10.42.0.0/22")
	const workers, each = 16, 40
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if _, err := attachVM(ctx, svc, w*each+i); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkLowest(t, db, "10.42.0.0/22", workers*each)
	if svc.inserts.batches.Load() == 0 {
		t.Error("16 clients' claims all ran alone: none shared a statement")
	}
	t.Logf("%d claims in %d statements of several", svc.inserts.batched.Load(), svc.inserts.batches.Load())
}

func TestOwnerRacingItselfHoldsOneAddress(t *testing.T) {
	svc, db, _ := newService(t)
	setupSubnet(t, svc, "10.42.1.0/24")
	ctx := context.Background()
	got := make([]string, 16)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			a, err := attachVM(ctx, svc, 7)
			if err != nil {
				t.Error(err)
			}
			got[i] = a.Address.String()
		})
	}
	wg.Wait()
	for _, a := range got {
		if a != got[0] {
			t.Fatalf("one owner racing itself got %v, want one address", got)
		}
	}
	checkLowest(t, db, "10.42.1.0/24", 1)
}

// TestTwoProcesses claims from two processes at once, eight goroutines
// each, on one subnet.
func TestTwoProcesses(t *testing.T) {
	svc, db, url := newService(t)
	setupSubnet(t, svc, "10.42.0.0/22")
	const per = 200
	var wg sync.WaitGroup
	for p := range 2 {
		wg.Go(func() {
			out, err := childCommand(url, p*per, per, 8).CombinedOutput()
			if err != nil {
				t.Errorf("process %d: %v\n%s", p, err, out)
			}
		})
	}
	wg.Wait()
	checkLowest(t, db, "10.42.0.0/22", 2*per)
}

// TestCrashDuringClaims kills a process with SIGKILL in the middle of its
// claims; then every owner asks again and must get exactly one address.
func TestCrashDuringClaims(t *testing.T) {
	svc, db, url := newService(t)
	setupSubnet(t, svc, "10.42.0.0/22")
	const owners = 600
	cmd := childCommand(url, 0, owners, 4)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for seen := 0; seen < owners/3 && sc.Scan(); seen++ {
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	var before int
	db.Get(&before, `SELECT count(*) FROM allocations WHERE owner_kind = 'VirtualMachine'`)
	if before >= owners {
		t.Fatalf("the process finished all %d claims before it was killed; the test proves nothing", owners)
	}
	t.Logf("killed after %d of %d claims", before, owners)

	// A restarted process: a new service, as after a restart.
	again, _ := openService(t, url)
	ctx := context.Background()
	got := map[string]int{}
	for i := range owners {
		a, err := attachVM(ctx, again, i)
		if err != nil {
			t.Fatal(err)
		}
		got[a.Address.String()]++
	}
	for a, n := range got {
		if n != 1 {
			t.Errorf("address %s handed to %d owners", a, n)
		}
	}
	_ = svc
	checkLowest(t, db, "10.42.0.0/22", owners)
}

// TestReleaseElsewhereIsReusedFirst: an address released by one process is
// the next one another process hands out, once the notification arrives.
func TestReleaseElsewhereIsReusedFirst(t *testing.T) {
	a, _, url := newService(t)
	setupSubnet(t, a, "10.42.1.0/24")
	b, _ := openService(t, url)
	ctx := context.Background()
	for i := range 5 {
		if _, err := attachVM(ctx, a, i); err != nil {
			t.Fatal(err)
		}
	}
	released, err := b.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "uid-1", Hostname: "vm-1"}})
	if err != nil || !released {
		t.Fatalf("DetachInterface in b = %v, %v", released, err)
	}
	waitNext(t, a, "10.42.1.3")
	got, err := attachVM(ctx, a, 99)
	if err != nil || got.Address.String() != "10.42.1.3" {
		t.Errorf("after the release elsewhere, a gave %v, %v; want 10.42.1.3", got.Address, err)
	}
}

// childCommand runs this test binary as a claiming process.
func childCommand(url string, first, count, workers int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %d", childEnv, url, first, count, workers))
	return cmd
}

// runChild claims VMs vm-first … vm-(first+count-1) with workers
// goroutines and prints each address as it is confirmed.
func runChild() int {
	f := strings.Fields(os.Getenv(childEnv))
	first, _ := strconv.Atoi(f[1])
	count, _ := strconv.Atoi(f[2])
	workers, _ := strconv.Atoi(f[3])
	ctx := context.Background()
	db, err := sqlx.Open("postgres", f[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	svc, err := New(ctx, Config{DB: store.New(db), URL: f[0]})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	next := make(chan int)
	go func() {
		for i := first; i < first+count; i++ {
			next <- i
		}
		close(next)
	}()
	var mu sync.Mutex
	failed := false
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				a, err := attachVM(ctx, svc, i)
				mu.Lock()
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					failed = true
				} else {
					fmt.Println(a.Address)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if failed {
		return 1
	}
	return 0
}

// TestWholeSubnetFreedElsewhereIsReusedFirst: one statement of a process
// that frees more than 64 addresses (a subnet deleted with its nodes'
// addresses) makes the other processes drop their view of the pool, so the
// next address they propose is the lowest, not the first one past what
// was freed.
func TestWholeSubnetFreedElsewhereIsReusedFirst(t *testing.T) {
	a, _, url := newService(t)
	setupSubnet(t, a, "10.42.1.0/24")
	b, _ := openService(t, url)
	ctx := context.Background()
	attachNode := func(svc *Service, i int) netip.Addr {
		t.Helper()
		got, err := svc.AttachNode(ctx, operator, AttachNodeInput{Namespace: "acme/prod", VPC: "main", Subnet: "web",
			Node: NodeRef{UID: fmt.Sprintf("node-%d", i), Name: fmt.Sprintf("node-%d", i)}})
		if err != nil {
			t.Fatal(err)
		}
		return got.Address
	}
	preview := func(svc *Service) netip.Addr {
		t.Helper()
		next, err := svc.Preview(ctx, operator, "acme/prod", "vpc-main", "10.42.1.0/24", []string{"10.42.1.1"}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return next[0]
	}
	lowest := attachNode(a, 0)
	for i := 1; i < 70; i++ {
		attachNode(a, i)
	}
	if got := preview(b); got == lowest {
		t.Fatalf("b proposes %s with 70 addresses taken", got)
	}
	if err := a.DeleteSubnet(ctx, operator, "acme/prod", "main", "web"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateSubnet(ctx, operator, CreateSubnetInput{Namespace: "acme/prod", VPC: "main", Name: "web", CIDR: "10.42.1.0/24"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for preview(b) != lowest {
		if time.Now().After(deadline) {
			t.Fatalf("b still proposes %s 5 s after a freed 70 addresses in one statement; want %s", preview(b), lowest)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := attachNode(b, 100); got != lowest {
		t.Errorf("b gave %s after a freed the subnet; want %s", got, lowest)
	}
}

// TestOwnReleaseNotificationIgnored: a process that releases an address
// and claims it again at once keeps it taken in its view when the
// notification of its release comes back.
func TestOwnReleaseNotificationIgnored(t *testing.T) {
	a, db, url := newService(t)
	setupSubnet(t, a, "10.42.1.0/24")
	b, _ := openService(t, url)
	ctx := context.Background()
	for i := range 5 {
		if _, err := attachVM(ctx, a, i); err != nil {
			t.Fatal(err)
		}
	}
	if got := nextInWeb(t, b); got != "10.42.1.7" {
		t.Fatalf("b proposes %s before the release, want 10.42.1.7", got)
	}
	if released, err := a.DetachInterface(ctx, acme, DetachInterfaceInput{Namespace: "acme/prod", VPC: "main", VM: VMRef{UID: "uid-1", Hostname: "vm-1"}}); err != nil || !released {
		t.Fatalf("DetachInterface = %v, %v", released, err)
	}
	if got, err := attachVM(ctx, a, 99); err != nil || got.Address.String() != "10.42.1.3" {
		t.Fatalf("the claim after the release got %v, %v; want 10.42.1.3", got.Address, err)
	}
	// b learns the release from the same notification as a.
	waitNext(t, b, "10.42.1.3")
	// A release of 10.42.1.2 (which vm-0 still holds) announced after it
	// tells when a has applied its own: notifications arrive in the order
	// their transactions commit, and a's view then proposes 10.42.1.2.
	var pool string
	if err := db.Get(&pool, `SELECT uid FROM pools WHERE name = 'vpc-main'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`SELECT pg_notify($1, $2)`, store.ReleasedChannel, pool+" 10.42.1.2 test"); err != nil {
		t.Fatal(err)
	}
	waitNext(t, a, "10.42.1.2")
	next, err := a.Preview(ctx, acme, "acme/prod", "vpc-main", "10.42.1.0/24", []string{"10.42.1.1"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(next) != 2 || next[1].String() != "10.42.1.7" {
		t.Errorf("a proposes %v once the notification of its own release came back, want 10.42.1.2 (told free after it) and 10.42.1.7: 10.42.1.3 is claimed again", next)
	}
}
