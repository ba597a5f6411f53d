package candidates

import (
	"encoding/json"
	"strings"
)

// A FieldError is a mistake in one field of a pool spec or a request. Its
// message starts with the field's name, so it reads well on its own; in
// JSON it carries its plain words too ("plain": PlainOf), which a form
// shows beside the field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *FieldError) Error() string { return e.Message }

// MarshalJSON writes the field, the message and its plain words.
func (e *FieldError) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Field   string `json:"field"`
		Message string `json:"message"`
		Plain   string `json:"plain"`
	}{e.Field, e.Message, e.PlainOf()})
}

// Errors holds every mistake found in one spec, in field order.
type Errors []*FieldError

func (errs Errors) Error() string {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Message
	}
	return strings.Join(msgs, "; ")
}

// Unwrap lets errors.As find each FieldError.
func (errs Errors) Unwrap() []error {
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return out
}

// errorList collects field errors and returns them as one error.
type errorList struct{ errs Errors }

func (l *errorList) add(field, message string) {
	l.errs = append(l.errs, &FieldError{Field: field, Message: message})
}

// addAll adds errs as mistakes of the part prefix of a larger input:
// "within" of "subnets[0]." becomes "subnets[0].within".
func (l *errorList) addAll(prefix string, errs Errors) {
	for _, e := range errs {
		l.add(prefix+e.Field, prefix+e.Message)
	}
}

func (l *errorList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	return l.errs
}
