package web

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
	"pivirt.hu/ipam/views"
)

// maxSchemaFormBytes bounds the schema load form: a file of the largest
// size schema.Parse reads, pasted or uploaded, and the rest of the form.
const maxSchemaFormBytes = schema.MaxBytes + 64<<10

// schemaLoad answers POST /schema: loads the schema pasted, or the file
// uploaded, on the branch in use, all or nothing. Loaded, back to the
// schema page saying what changed; refused, the page again with every
// mistake in full, the schema unchanged.
func (s *Server) schemaLoad(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxSchemaFormBytes)
	if err := r.ParseMultipartForm(maxSchemaFormBytes); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		http.Error(w, "The form could not be read: "+err.Error(), http.StatusBadRequest)
		return
	}
	name, text := "schema", r.PostFormValue("schema")
	if file, header, err := r.FormFile("file"); err == nil {
		data, err := io.ReadAll(file)
		file.Close()
		if err != nil {
			http.Error(w, "The file could not be read: "+err.Error(), http.StatusBadRequest)
			return
		}
		if len(data) > 0 {
			name, text = cmp.Or(header.Filename, name), string(data)
		}
	}
	branchName := branchInUse(r)
	changes, err := s.loadSchema(r, branchName, name, text)
	if err == nil {
		href := views.BranchHref(views.SchemaPath, branchName)
		if err := s.putFlash(r.Context(), href, views.Flash{Message: loadedMessage(branchName, changes)}); err != nil {
			s.serverError(w, r, err)
			return
		}
		http.Redirect(w, r, href, http.StatusSeeOther)
		return
	}
	var mistakes schema.Errors
	switch c := refusal.Classify(err); {
	case errors.As(err, &mistakes), errors.Is(err, errNoSchema), c.Code == refusal.CodeInvalidArgument, c.Code == refusal.CodeConflict:
	case c.Code == refusal.CodeNotFound:
		s.notFound(w, r)
		return
	default:
		s.serverError(w, r, err)
		return
	}
	s.renderSchema(w, r, http.StatusUnprocessableEntity, views.SchemaPageProps{Text: r.PostFormValue("schema"), Errors: refusalLines(err)})
}

// errNoSchema refuses a load form with neither text nor file.
var errNoSchema = errors.New("paste a schema or choose a file to upload")

// loadSchema parses text, named name in messages, and loads it on the
// branch.
func (s *Server) loadSchema(r *http.Request, branchName, name, text string) (schema.Changes, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errNoSchema
	}
	f, err := schema.Parse(name, []byte(text))
	if err != nil {
		return nil, err
	}
	actor, _ := actorFrom(r.Context())
	return s.branches.LoadSchema(r.Context(), actor, branchName, f)
}

// refusalLines are the full texts of a refused load, one per mistake.
func refusalLines(err error) []string {
	var errs schema.Errors
	if errors.As(err, &errs) {
		out := make([]string, len(errs))
		for i, e := range errs {
			out[i] = e.Error()
		}
		return out
	}
	return strings.Split(err.Error(), "\n")
}

// loadedMessage says what a load changed on the branch.
func loadedMessage(branchName string, changes schema.Changes) string {
	if len(changes) == 0 {
		return "The schema of " + branchName + " already holds this file: nothing changed."
	}
	counts := map[schema.Op]int{}
	for _, c := range changes {
		counts[c.Op]++
	}
	return fmt.Sprintf("Loaded the schema on %s: %s added, %s changed, %s removed.", branchName,
		views.Figure(counts[schema.Added]), views.Figure(counts[schema.Changed]), views.Figure(counts[schema.Removed]))
}
