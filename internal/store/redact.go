package store

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/lib/pq"
)

// redacted stands for a password, as net/url's URL.Redacted writes it.
const redacted = "xxxxx"

// RedactURL returns dsn, a lib/pq URL (postgres://user:password@host/db,
// or ?password=… in its query) or key=value DSN (password=…), with its
// password replaced by xxxxx (as net/url's URL.Redacted writes it) and the
// rest as it was, whether dsn can be read or not: errors and logs show a
// database URL only so. Where a malformed URL leaves it unclear where the
// password ends, more is masked rather than less.
func RedactURL(dsn string) string {
	scheme, rest, ok := strings.Cut(dsn, "://")
	if !ok || scheme != "postgres" && scheme != "postgresql" {
		return redactDSN(dsn)
	}
	// The user information ends at the authority's last @: the authority
	// ends at the first / ? or # of a URL that reads, and anywhere in one
	// that does not (its password may hold any of them), so there it runs
	// to the last @ of all. The password starts after its first colon.
	userEnd := strings.LastIndex(rest, "@")
	if _, err := url.Parse(dsn); err == nil {
		authority := rest
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			authority = rest[:i]
		}
		userEnd = strings.LastIndex(authority, "@")
	}
	if userEnd >= 0 {
		if user, _, hasPassword := strings.Cut(rest[:userEnd], ":"); hasPassword {
			rest = user + ":" + redacted + rest[userEnd:]
		}
	}
	return scheme + "://" + queryPassword.ReplaceAllString(rest, "${1}"+redacted)
}

// queryPassword is the value of a password parameter in a URL's query.
var queryPassword = regexp.MustCompile(`([?&]password=)[^&#]*`)

// dsnPassword is the start of a password's value in a key=value DSN, and
// dsnNextKey the start of the key after an unquoted value.
var (
	dsnPassword = regexp.MustCompile(`(?i)(^|\s)password\s*=\s*`)
	dsnNextKey  = regexp.MustCompile(`\s+[^\s=']+\s*=`)
)

// redactDSN masks the values of password keys of a key=value DSN: a
// quoted value to its closing quote (the end of dsn when there is none),
// written 'xxxxx', an unquoted one up to the next key (a password with an
// unquoted space is malformed, and all of it is masked).
func redactDSN(dsn string) string {
	var b strings.Builder
	for {
		loc := dsnPassword.FindStringIndex(dsn)
		if loc == nil {
			b.WriteString(dsn)
			return b.String()
		}
		b.WriteString(dsn[:loc[1]])
		rest := dsn[loc[1]:]
		end := len(rest)
		if strings.HasPrefix(rest, "'") {
			b.WriteString("'" + redacted + "'")
			for i := 1; i < len(rest); i++ {
				if rest[i] == '\\' {
					i++
				} else if rest[i] == '\'' {
					end = i + 1
					break
				}
			}
		} else {
			b.WriteString(redacted)
			if next := dsnNextKey.FindStringIndex(rest); next != nil {
				end = next[0]
			}
		}
		dsn = rest[end:]
	}
}

// ParseURL reads dsn, a URL or key=value DSN, as lib/pq's NewConfig does.
// Its error names dsn with the
// password masked, and says what is wrong without quoting any part of the
// password: lib/pq's own error may quote all of it (net/url's errors hold
// the whole URL) or pieces of it (an unquoted password with a space reads
// as a key without a value), so the reason given is lib/pq's for the
// masked text; when that text reads, the password was what could not be.
func ParseURL(dsn string) (pq.Config, error) {
	cfg, err := pq.NewConfig(dsn)
	if err == nil {
		return cfg, nil
	}
	masked := RedactURL(dsn)
	reason := "its password cannot be read: in a URL, percent-encode the characters @ : / ? # % and spaces in it; in key=value form, quote it (password='…', a quote or backslash in it escaped by a backslash)"
	if _, err := pq.NewConfig(masked); err != nil {
		reason = err.Error()
		var uerr *url.Error
		if errors.As(err, &uerr) {
			reason = uerr.Err.Error()
		}
	}
	return pq.Config{}, fmt.Errorf("store: unable to read the database URL %s: %s", masked, reason)
}
