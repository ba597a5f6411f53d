package web

import (
	"net/http"

	"pivirt.hu/ipam/views"
)

// routes lists every route of the server.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()

	// Open to anyone.
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.Handle("GET /static/{path...}", s.assets)
	mux.Handle("GET /login", s.withSession(http.HandlerFunc(s.loginForm)))
	mux.Handle("POST /login", s.withSession(http.HandlerFunc(s.login)))
	// A bearer token or the console's session (see authenticate), on
	// main or on the branch named. GET from a browser: GraphiQL, signed in
	// with the session.
	if s.metrics != nil {
		mux.Handle("GET /metrics", s.withSession(http.HandlerFunc(s.serveMetrics)))
	}
	for _, path := range []string{"/graphql", "/graphql/{branch...}"} {
		mux.Handle("GET "+path, s.withSession(http.HandlerFunc(s.graphqlGet)))
		mux.Handle("POST "+path, s.withSession(s.graphql))
	}

	// The VPC page's forms, each posted to its own path
	// (/vpcs/<namespace>/<name>/-/<form>: views.VPCFormHref).
	vpcForms := s.vpcForms(map[string]vpcForm{
		views.FormAttachInterface: s.vpcInterfaceAttach,
		views.FormClaimFloatingIP: s.vpcFloatingIPClaim,
		views.FormCreateSubnet:    s.vpcSubnetCreate,
		// The destructive actions, each confirmed first on the page
		// that vpcPages draws for it.
		views.ConfirmDetach:       s.vpcInterfaceDetach,
		views.ConfirmReleaseFIP:   s.floatingIPRelease,
		views.ConfirmDeleteSubnet: s.subnetDelete,
		views.ConfirmDeleteVPC:    s.vpcDelete,
	})
	vpcPages := s.vpcPages(s.vpcShow, map[string]vpcConfirm{
		views.ConfirmDetach:       s.vpcInterfaceDetachForm,
		views.ConfirmReleaseFIP:   s.floatingIPReleaseForm,
		views.ConfirmDeleteSubnet: s.subnetDeleteForm,
		views.ConfirmDeleteVPC:    s.vpcDeleteForm,
	})
	// The console, for signed-in users: anonymous visitors are sent to
	// /login. Add its pages here, or to operatorRoutes.
	console := map[string]http.HandlerFunc{
		"GET /{$}":               s.home,
		"POST /logout":           s.logout,
		"GET /pools":             s.poolList,
		"GET /pools/{path...}":   s.poolShow,
		"GET /vpcs":              s.vpcList,
		"GET /vpcs/new":          s.vpcNew,
		"POST /vpcs":             s.vpcCreate,
		"GET /vpcs/{path...}":    vpcPages,
		"POST /vpcs/{path...}":   vpcForms,
		"GET /subnets/{path...}": s.subnetShow,
		"GET /search":            s.search,
		// An address's own page, and the release of its holder.
		"GET /addresses/{path...}":  s.addressShow,
		"POST /addresses/{path...}": s.addressRelease,

		// Any other path: the 404 page.
		"GET /": s.notFound,
	}
	for pattern, h := range console {
		mux.Handle(pattern, s.withSession(s.requireActor(h)))
	}
	for pattern, h := range s.operatorRoutes() {
		mux.Handle(pattern, s.withSession(s.requireActor(s.requireOperator(h))))
	}
	return mux
}

// operatorRoutes are the console's pages for operators only: a tenant gets
// the 404 page of what does not exist (requireOperator), so their handlers
// need not ask who the user is. Add operators' pages here.
func (s *Server) operatorRoutes() map[string]http.HandlerFunc {
	return map[string]http.HandlerFunc{
		"GET /pools/new":     s.poolNew,
		"POST /pools":        s.poolCreate,
		"GET /audit":         s.auditList,
		"GET /quotas":        s.quotaList,
		"POST /quotas":       s.quotaSet,
		"GET /quotas/unset":  s.quotaUnsetForm,
		"POST /quotas/unset": s.quotaUnset,
		// A public pool's Edit and Delete.
		"GET /pools/{name}/edit":    s.poolEdit,
		"POST /pools/{name}/edit":   s.poolUpdate,
		"GET /pools/{name}/delete":  s.poolDeleteForm,
		"POST /pools/{name}/delete": s.poolDelete,

		// Branches, schema and objects of kinds (docs/branches.md).
		"GET /branches":                    s.branchList,
		"POST /branches":                   s.branchCreate,
		"POST /branches/merge":             s.branchMerge,
		"POST /branches/rebase":            s.branchRebase,
		"POST /branches/delete":            s.branchDelete,
		"POST /branches/resolve":           s.branchResolve,
		"GET /branches/{path...}":          s.branchPage,
		"GET /schema":                      s.schemaShow,
		"POST /schema":                     s.schemaLoad,
		"GET /objects/{kind}":              s.objectList,
		"GET /objects/{kind}/new":          s.objectNew,
		"POST /objects/{kind}":             s.objectCreate,
		"GET /objects/{kind}/{id}/edit":    s.objectEdit,
		"POST /objects/{kind}/{id}":        s.objectUpdate,
		"GET /objects/{kind}/{id}/delete":  s.objectDeleteForm,
		"POST /objects/{kind}/{id}/delete": s.objectDelete,

		// Resource Managers: every pool; number pools (docs/numbers.md).
		"GET /resource-managers":              s.resourceManagerList,
		"GET /resource-managers/new":          s.numberPoolNew,
		"POST /resource-managers":             s.numberPoolCreate,
		"GET /resource-managers/{id}":         s.numberPoolShow,
		"GET /resource-managers/{id}/edit":    s.numberPoolEdit,
		"POST /resource-managers/{id}":        s.numberPoolUpdate,
		"GET /resource-managers/{id}/delete":  s.numberPoolDeleteForm,
		"POST /resource-managers/{id}/delete": s.numberPoolDelete,
	}
}
