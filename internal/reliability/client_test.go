package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// requestTimeout bounds every request of the tests: longer than the GraphQL
// API's own limit (30 s), so that a request the server does not bound shows
// up as a hang.
const requestTimeout = 40 * time.Second

// newHTTPClient returns a client for many concurrent requests to loopback
// servers. It follows no redirect: the tests read them.
func newHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	tr.Proxy = nil
	return &http.Client{
		Transport:     tr,
		Timeout:       requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// The outcomes of a request that changes something.
type outcome int

const (
	// confirmed: 200 with data and no error; the client holds the answer.
	confirmed outcome = iota
	// unavailable: the service said UNAVAILABLE, retryable.
	unavailable
	// dropped: the connection failed (refused, reset, cut short), as it
	// does when the process dies.
	dropped
	// failed: any other answer, which no test accepts.
	failed
)

func (o outcome) String() string {
	return [...]string{"confirmed", "unavailable", "dropped", "failed"}[o]
}

// gqlResult is a GraphQL answer as the tests read it.
type gqlResult struct {
	outcome outcome
	status  int // 0 when dropped
	data    map[string]json.RawMessage
	errors  []gqlError
	err     error // the transport's error, when dropped
	took    time.Duration
}

type gqlError struct {
	Message    string `json:"message"`
	Extensions struct {
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	} `json:"extensions"`
}

func (r gqlResult) String() string {
	switch r.outcome {
	case dropped:
		return fmt.Sprintf("dropped after %v: %v", r.took.Round(time.Millisecond), r.err)
	case confirmed:
		return fmt.Sprintf("200 %v", r.data)
	}
	return fmt.Sprintf("%d %+v", r.status, r.errors)
}

// graphql posts a GraphQL request to base with a bearer token and sorts its
// answer into an outcome.
func graphql(ctx context.Context, client *http.Client, base, token, query string, vars map[string]any) gqlResult {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/graphql", bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	began := time.Now()
	res, err := client.Do(req)
	if err != nil {
		return gqlResult{outcome: dropped, err: err, took: time.Since(began)}
	}
	defer res.Body.Close()
	var out struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []gqlError                 `json:"errors"`
	}
	raw, err := io.ReadAll(res.Body)
	r := gqlResult{status: res.StatusCode, took: time.Since(began)}
	if err != nil {
		r.outcome, r.err = dropped, err
		return r
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		r.outcome, r.err = failed, fmt.Errorf("the answer is not JSON: %v: %.200s", err, raw)
		return r
	}
	r.data, r.errors = out.Data, out.Errors
	switch {
	case res.StatusCode == http.StatusOK && len(out.Errors) == 0 && out.Data != nil:
		r.outcome = confirmed
	case (res.StatusCode == http.StatusOK || res.StatusCode == http.StatusServiceUnavailable) && len(out.Errors) > 0 &&
		!slices.ContainsFunc(out.Errors, func(e gqlError) bool {
			return e.Extensions.Code != "UNAVAILABLE" || !e.Extensions.Retryable || !strings.Contains(e.Message, "retry")
		}):
		r.outcome = unavailable
	default:
		r.outcome = failed
	}
	return r
}

// must runs a GraphQL request that must succeed and decodes field of its
// data into out.
func must(t *testing.T, client *http.Client, base, token, query string, vars map[string]any, field string, out any) {
	t.Helper()
	r := graphql(t.Context(), client, base, token, query, vars)
	if r.outcome != confirmed {
		t.Fatalf("POST %s/graphql %.80s: %v", base, query, r)
	}
	if out != nil {
		if err := json.Unmarshal(r.data[field], out); err != nil {
			t.Fatalf("decoding %s of %s: %v", field, r.data[field], err)
		}
	}
}

// The operations of the tests.
const (
	createPublicPool = `mutation($name: String!, $cidr: String!, $zone: String) {
		createPublicPool(input: {name: $name, cidr: $cidr, zone: $zone}) { name } }`
	createVPC = `mutation($name: String!, $cidr: String!, $zone: String) {
		createVpc(input: {namespace: "acme/prod", name: $name, cidr: $cidr, zone: $zone}) { name } }`
	createSubnet = `mutation($vpc: String!, $name: String!, $cidr: String!) {
		createSubnet(input: {namespace: "acme/prod", vpc: $vpc, name: $name, cidr: $cidr}) { name } }`
	attachInterface = `mutation($vm: String!) {
		attachInterface(input: {namespace: "acme/prod", vpc: "main", subnet: "web", vm: {uid: $vm, hostname: $vm}, nic: 0}) { address } }`
	detachInterface = `mutation($vm: String!) {
		detachInterface(input: {namespace: "acme/prod", vpc: "main", vm: {uid: $vm, hostname: $vm}, nic: 0}) }`
	claimFloatingIP = `mutation($name: String!) {
		claimFloatingIp(input: {namespace: "acme/prod", name: $name, zone: "zone-a"}) { address } }`
	releaseFloatingIP = `mutation($name: String!) { releaseFloatingIp(namespace: "acme/prod", name: $name) }`
	readVPC           = `{ vpc(namespace: "acme/prod", name: "main") { name subnets { name usage { used free } } } }`
	readFloatingIPs   = `{ floatingIps(namespace: "acme/prod") { name address } }`
)

// address returns the address in a confirmed answer of attachInterface or
// claimFloatingIp.
func (r gqlResult) address(field string) string {
	var a struct{ Address string }
	json.Unmarshal(r.data[field], &a)
	return a.Address
}

// setupVPC makes the VPC acme/prod/main (10.42.0.0/16) with the subnet web
// (cidr) through base, as the tenant of token.
func setupVPC(t *testing.T, client *http.Client, base, token, cidr string) {
	t.Helper()
	must(t, client, base, token, createVPC, map[string]any{"name": "main", "cidr": "10.42.0.0/16"}, "", nil)
	must(t, client, base, token, createSubnet, map[string]any{"vpc": "main", "name": "web", "cidr": cidr}, "", nil)
}

// signIn signs name in to the console at base through POST /login and
// returns a client that carries the session cookie.
func signIn(t *testing.T, base, name, password string) *http.Client {
	t.Helper()
	client := newHTTPClient()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client.Jar = jar
	res, err := client.PostForm(base+"/login", url.Values{"username": {name}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /login as %s = %d, want 303:\n%s", name, res.StatusCode, body)
	}
	return client
}

// get fetches base+path and returns the status and the body.
func get(ctx context.Context, client *http.Client, target string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return 0, "", err
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res.StatusCode, string(body), err
}

// healthWatch polls GET /healthz of bases until stopped and remembers the
// statuses it saw.
type healthWatch struct {
	mu   sync.Mutex
	seen map[int]int // status → count; 0 when the request failed
	last map[string]int
	stop chan struct{}
	done chan struct{}
}

func watchHealth(client *http.Client, bases ...string) *healthWatch {
	h := &healthWatch{seen: map[int]int{}, last: map[string]int{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, base := range bases {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				status, _, err := get(ctx, client, base+"/healthz")
				cancel()
				if err != nil {
					status = 0
				}
				h.mu.Lock()
				h.seen[status]++
				h.last[base] = status
				h.mu.Unlock()
			}
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

// healthy reports whether the last answer of every base was 200.
func (h *healthWatch) healthy(bases ...string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, b := range bases {
		if h.last[b] != http.StatusOK {
			return false
		}
	}
	return true
}

// count returns how often status was seen.
func (h *healthWatch) count(status int) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen[status]
}

func (h *healthWatch) close() {
	close(h.stop)
	<-h.done
}

// waitUntil polls cond every 20 ms until it holds or timeout passes.
func waitUntil(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
