package web

import (
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/static"
	"pivirt.hu/ipam/views"
)

// graphiqlDefaultQuery is the query GraphiQL opens with, the first time.
const graphiqlDefaultQuery = `# The GraphQL API of PiVirt IPAM, as the signed-in user.
# The Docs pane lists every query and mutation; Ctrl-Enter runs.
{
  pools {
    name
    cidr
    usage { used size utilization }
  }
}
`

// graphqlGet serves GET /graphql: to a browser (a request that accepts
// HTML), GraphiQL for a signed-in user, the sign-in page for anyone else;
// to an API client, the API's own answer (it takes POST).
func (s *Server) graphqlGet(w http.ResponseWriter, r *http.Request) {
	if !acceptsHTML(r.Header.Get("Accept")) {
		s.graphql.ServeHTTP(w, r)
		return
	}
	s.requireActor(http.HandlerFunc(s.graphiql)).ServeHTTP(w, r)
}

// graphiql serves the page of the API's explorer, on main (/graphql) or
// on the branch the path names (/graphql/<branch>): the page posts there.
// A branch that does not exist, or that the user may not see (tenants see
// main only), is the 404 page.
func (s *Server) graphiql(w http.ResponseWriter, r *http.Request) {
	actor, _ := actorFrom(r.Context())
	name, url := r.PathValue("branch"), "/graphql"
	if name != "" {
		url += "/" + name
	}
	props := views.GraphiQLProps{Asset: s.assets.URL, Integrity: static.GraphiQLIntegrity, URL: url, DefaultQuery: graphiqlDefaultQuery}
	if name != "" && name != branch.Main {
		_, err := s.branches.Branch(r.Context(), actor, name)
		if errors.Is(err, refusal.ErrNotFound) {
			s.notFound(w, r)
			return
		}
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		props.Branch, props.DefaultQuery = name, graphiqlBranchQuery(name)
	}
	s.render(w, r, http.StatusOK, views.GraphiQL(props))
}

// graphiqlBranchQuery is the query GraphiQL opens with on a branch.
func graphiqlBranchQuery(name string) string {
	return `# The GraphQL API of PiVirt IPAM on the branch ` + name + `.
# The Docs pane lists every query and mutation, those of the kinds of
# the branch's schema among them; Ctrl-Enter runs.
{
  Branch(name: ` + strconv.Quote(name) + `) { name branched_from has_schema_changes }
  schema { kinds { kind generic } }
}
`
}

// acceptsHTML reads an Accept header: text/html is accepted when listed
// with a weight above zero (a browser's navigation lists it; API clients
// send */* or application/json).
func acceptsHTML(header string) bool {
	for _, part := range strings.Split(header, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "text/html" {
			continue
		}
		weight := 1.0
		if q, ok := params["q"]; ok {
			if v, err := strconv.ParseFloat(q, 64); err == nil {
				weight = v
			}
		}
		return weight > 0
	}
	return false
}
