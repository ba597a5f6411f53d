package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/graphql"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/numbers"
	"pivirt.hu/ipam/internal/store"
)

// gqlResult holds the server time of GraphQL requests, each beside the
// same domain calls made without GraphQL in the same runs (the reference).
type gqlResult struct {
	query, queryDirect figure // a pool with its usage
	claim, claimDirect figure // a VM interface's address
	// queryRatio and claimRatio are the medians of the runs' p50 ratios of
	// the request to its reference.
	queryRatio, claimRatio float64
}

// gqlQuery is the small query: one pool and its usage, two domain calls.
const gqlQuery = `{ pool(name: "gql-pool") { name cidr gateway usage { size used free utilization } } }`

// gqlClaim is the claim mutation: a VM interface in subnet all of VPC net.
const gqlClaim = `mutation($ns: String!, $uid: String!) {
	attachInterface(input: {namespace: $ns, vpc: "net", subnet: "all", vm: {uid: $uid, hostname: $uid}, nic: 0}) { name address owner { kind uid name } }
}`

// measureGraphQL times the GraphQL handler, called in process as an
// operator (authentication aside): the small query and the claim
// mutation, each alternating with the domain calls it makes.
func measureGraphQL(ctx context.Context, cfg config, db *store.DB, svc *ipam.Service) (gqlResult, error) {
	var out gqlResult
	h, closeHandler, err := operatorAPI(ctx, db, svc)
	if err != nil {
		return out, err
	}
	defer closeHandler()
	if _, err := svc.CreatePublicPool(ctx, operator, ipam.CreatePublicPoolInput{Name: "gql-pool", CIDR: "198.18.0.0/16", Gateway: "198.18.0.1"}); err != nil {
		return out, err
	}
	s, err := createSubnet(ctx, svc, "bench/graphql")
	if err != nil {
		return out, err
	}
	post := func(query string, vars map[string]any) (time.Duration, error) {
		d, _, err := postGraphQL(ctx, h, query, vars)
		return d, err
	}
	direct := func() (time.Duration, error) {
		start := time.Now()
		p, err := svc.Pool(ctx, operator, "", "gql-pool")
		if err == nil {
			_, err = svc.PoolUsage(ctx, operator, p)
		}
		return time.Since(start), err
	}
	claims := 0
	claim := func(viaGraphQL bool) (time.Duration, error) {
		claims++
		uid := fmt.Sprintf("gql-%d", claims)
		if viaGraphQL {
			return post(gqlClaim, map[string]any{"ns": s.ns, "uid": uid})
		}
		_, d, err := s.attach(ctx, svc, uid)
		return d, err
	}
	progress("GraphQL: a small query and a claim mutation, each alternating with the same calls without GraphQL")
	for range 20 { // warms the handler, the views and the caches
		if _, err := post(gqlQuery, nil); err != nil {
			return out, err
		}
		if _, err := claim(true); err != nil {
			return out, err
		}
	}
	var q, qd, c, cd []run
	var qRatios, cRatios []float64
	for r := range cfg.runs {
		pairs := []struct {
			req, ref *[]run
			ratios   *[]float64
			reqOp    func() (time.Duration, error)
			refOp    func() (time.Duration, error)
		}{
			{&q, &qd, &qRatios, func() (time.Duration, error) { return post(gqlQuery, nil) }, direct},
			{&c, &cd, &cRatios, func() (time.Duration, error) { return claim(true) }, func() (time.Duration, error) { return claim(false) }},
		}
		for _, p := range pairs {
			ref, err := concurrently(cfg.gqlN, 1, p.refOp)
			if err != nil {
				return out, err
			}
			req, err := concurrently(cfg.gqlN, 1, p.reqOp)
			if err != nil {
				return out, err
			}
			*p.req, *p.ref = append(*p.req, req), append(*p.ref, ref)
			*p.ratios = append(*p.ratios, ratio(req.stats().p50, ref.stats().p50))
		}
		progress("  run %d: query p50 %.3f ms (%.2f × direct), claim p50 %.3f ms (%.2f × direct)",
			r+1, q[r].stats().p50, qRatios[r], c[r].stats().p50, cRatios[r])
	}
	out.query, out.queryDirect, out.claim, out.claimDirect = figureOf(q), figureOf(qd), figureOf(c), figureOf(cd)
	out.queryRatio, out.claimRatio = median(qRatios), median(cRatios)
	return out, nil
}

// postGraphQL times POST /graphql of the query with the variables through
// the handler, and returns the answer's body; an answer other than 200, or
// with errors, is an error.
func postGraphQL(ctx context.Context, h http.Handler, query string, vars map[string]any) (time.Duration, []byte, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, req)
	d := time.Since(start)
	if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"errors"`) {
		return d, nil, fmt.Errorf("POST /graphql %.60s = %d: %.300s", query, rec.Code, rec.Body.String())
	}
	return d, rec.Body.Bytes(), nil
}

// operatorAPI returns the GraphQL API's handler over svc, every request
// made as the bench's operator, and what closes it.
func operatorAPI(ctx context.Context, db *store.DB, svc *ipam.Service) (http.Handler, func(), error) {
	quiet := slog.New(slog.DiscardHandler)
	pools, err := numbers.New(ctx, numbers.Config{DB: db, Logger: quiet})
	if err != nil {
		return nil, nil, err
	}
	h, err := graphql.NewHandler(svc, pools, func(*http.Request) (auth.Actor, error) { return operator, nil }, quiet)
	if err != nil {
		pools.Close()
		return nil, nil, err
	}
	return h, pools.Close, nil
}
