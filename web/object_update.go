package web

import "net/http"

// objectUpdate answers POST /objects/{kind}/{id}: saves the object's form
// on the branch, as objectCreate does a new one.
func (s *Server) objectUpdate(w http.ResponseWriter, r *http.Request) {
	s.objectSave(w, r, r.PathValue("id"))
}
