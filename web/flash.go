package web

import (
	"context"
	"encoding/json"
)

// A flash is what a form's answer says on the page it redirects to, once:
// a form that changes something answers 303 See Other, so that reloading
// the page it leads to never sends the form again, and leaves its message
// in the session for that page. The message is kept under the page's path,
// so that another page loaded meanwhile does not take it.

// flashKey is the session's key of the flash of the page at path.
func flashKey(path string) string { return "flash " + path }

// putFlash leaves v, which marshals to JSON, for the page at path.
func (s *Server) putFlash(ctx context.Context, path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.sessions.Put(ctx, flashKey(path), string(b))
	return nil
}

// popFlash takes the flash left for the page at path into v, and reports
// whether there was one.
func (s *Server) popFlash(ctx context.Context, path string, v any) bool {
	b := s.sessions.PopString(ctx, flashKey(path))
	return b != "" && json.Unmarshal([]byte(b), v) == nil
}
