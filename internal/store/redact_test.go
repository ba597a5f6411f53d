package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"pivirt.hu/ipam/internal/store"
)

// password is the password of every URL below: no part of it may show in
// an error, Pw0rd being in each part.
const password = "Pw0rdA"

// TestMalformedURLErrorMasksPassword opens malformed database URLs and
// DSNs holding a password, through every function that reads one: each
// error names the URL with the password masked (xxxxx, as net/url's
// URL.Redacted writes it) and says what is wrong, without any part of the
// password.
func TestMalformedURLErrorMasksPassword(t *testing.T) {
	for _, c := range []struct {
		name, url string
		want      []string // in the error
	}{
		{"URL, a port that is no number", "postgres://alice:" + password + "@db.example:54x2/ipam?sslmode=require",
			[]string{"postgres://alice:xxxxx@db.example:54x2/ipam?sslmode=require", `invalid port ":54x2" after host`}},
		{"URL, a slash in the password", "postgres://alice:" + password + "/Pw0rdB@db.example/ipam",
			[]string{"postgres://alice:xxxxx@db.example/ipam", "its password cannot be read", "percent-encode"}},
		{"URL, a space in the password", "postgresql://alice:" + password + " Pw0rdB@db.example/ipam",
			[]string{"postgresql://alice:xxxxx@db.example/ipam", "its password cannot be read"}},
		{"URL, a bad escape in the password", "postgres://alice:" + password + "%zz@db.example/ipam",
			[]string{"postgres://alice:xxxxx@db.example/ipam", "its password cannot be read"}},
		{"URL, the password in the query", "postgres://alice@db.example:54x2/ipam?password=" + password + "&sslmode=disable",
			[]string{"postgres://alice@db.example:54x2/ipam?password=xxxxx&sslmode=disable", "invalid port"}},
		{"DSN, a bad port", "host=db.example user=alice password=" + password + " port=54x2",
			[]string{"host=db.example user=alice password=xxxxx port=54x2", `wrong value for "port"`}},
		{"DSN, an unquoted space in the password", "host=db.example password=" + password + " Pw0rdB port=5432",
			[]string{"host=db.example password=xxxxx port=5432", "its password cannot be read", "quote it"}},
		{"DSN, a quoted password not closed", "host=db.example password='" + password + " Pw0rdB port=5432",
			[]string{"host=db.example password='xxxxx'", "its password cannot be read"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := pq.NewConfig(c.url); err == nil {
				t.Fatalf("lib/pq reads %q: the case is not malformed", c.url)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			opens := map[string]func() error{
				"Open": func() error {
					_, err := store.Open(ctx, c.url)
					return err
				},
				"OpenPooled": func() error {
					_, err := store.OpenPooled(ctx, c.url)
					return err
				},
				"OpenOwnerLocks": func() error {
					_, err := store.OpenOwnerLocks(ctx, c.url, time.Second)
					return err
				},
				"Listen": func() error {
					_, err := store.Listen(ctx, c.url, []string{"ipam_test"}, nil)
					return err
				},
			}
			for name, open := range opens {
				err := open()
				if err == nil {
					t.Fatalf("%s(%q) succeeded", name, c.url)
				}
				if strings.Contains(err.Error(), "Pw0rd") {
					t.Errorf("%s's error holds the password: %v", name, err)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s's error does not hold %q: %v", name, w, err)
					}
				}
			}
		})
	}
}

// TestRedactURL masks the password of URLs and DSNs that read, keeping
// the rest as it was.
func TestRedactURL(t *testing.T) {
	for url, want := range map[string]string{
		"postgres://alice:" + password + "@db.example:5432/ipam?sslmode=require":            "postgres://alice:xxxxx@db.example:5432/ipam?sslmode=require",
		"postgres://alice:" + password + "@Pw0rdB@db.example/ipam":                          "postgres://alice:xxxxx@db.example/ipam",
		"postgres://alice@db.example/ipam?password=" + password:                             "postgres://alice@db.example/ipam?password=xxxxx",
		"postgres://postgres@/ipam?host=%2Fvar%2Flib%2Fpivirt-ipam&port=5432":               "postgres://postgres@/ipam?host=%2Fvar%2Flib%2Fpivirt-ipam&port=5432",
		"host=db.example user=alice password=" + password + " dbname=ipam":                  "host=db.example user=alice password=xxxxx dbname=ipam",
		"host=db.example password = '" + password + ` \' Pw0rdB' dbname=ipam`:               "host=db.example password = 'xxxxx' dbname=ipam",
		"host=db.example dbname=ipam":                                                       "host=db.example dbname=ipam",
		"host=db.example dbname=ipam password=" + password + " passfile=/x password=Pw0rdB": "host=db.example dbname=ipam password=xxxxx passfile=/x password=xxxxx",
	} {
		if got := store.RedactURL(url); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", url, got, want)
		}
	}
}

// FuzzRedactURL checks, for any text lib/pq reads, that RedactURL's
// reads the same but for the password, which it no longer holds.
func FuzzRedactURL(f *testing.F) {
	for _, s := range []string{
		"postgres://alice:" + password + "@db.example:5432/ipam?sslmode=require",
		"postgresql://alice:p%40ss%2Fword@db.example/ipam?password=other&application_name=x",
		"host=db.example user=alice password='" + password + ` \' b' dbname=ipam`,
		"password=" + password,
		"user=alice password= " + password + "  host=h",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		masked := store.RedactURL(s)
		cfg, err := pq.NewConfig(s)
		if err != nil || cfg.Password == "" {
			return
		}
		got, err := pq.NewConfig(masked)
		if err != nil {
			t.Fatalf("RedactURL(%q) = %q, which lib/pq does not read: %v", s, masked, err)
		}
		if got.Password != "xxxxx" {
			t.Errorf("RedactURL(%q) = %q, whose password is %q", s, masked, got.Password)
		}
		got.Password = cfg.Password
		if got.Host != cfg.Host || got.Port != cfg.Port || got.User != cfg.User || got.Database != cfg.Database || got.SSLMode != cfg.SSLMode {
			t.Errorf("RedactURL(%q) = %q reads as %+v, want %+v but for the password", s, masked, got, cfg)
		}
	})
}
