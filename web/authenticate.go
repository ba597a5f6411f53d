package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/graphql"
)

// authenticate returns the actor of an API request: the user of its bearer
// token or, without one, the user signed in to the console (whose browser
// requests http.CrossOriginProtection screens). A token in the URL is
// refused, whatever it is: URLs end up in logs.
func (s *Server) authenticate(r *http.Request) (auth.Actor, error) {
	if r.URL.Query().Has("token") || r.URL.Query().Has("access_token") {
		return auth.Actor{}, fmt.Errorf("%w: tokens are not accepted in the URL; send Authorization: Bearer <token>", graphql.ErrUnauthenticated)
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		if actor, ok := actorFrom(r.Context()); ok {
			return actor, nil
		}
		return auth.Actor{}, fmt.Errorf("%w: sign in, or send Authorization: Bearer <token> (ipam token create NAME makes one)", graphql.ErrUnauthenticated)
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return auth.Actor{}, fmt.Errorf("%w: the Authorization header must be Bearer <token>", graphql.ErrUnauthenticated)
	}
	actor, err := s.auth.AuthenticateToken(r.Context(), strings.TrimSpace(token))
	if errors.Is(err, auth.ErrUnauthenticated) {
		return auth.Actor{}, fmt.Errorf("%w: the token is unknown or revoked", graphql.ErrUnauthenticated)
	}
	return actor, err
}
