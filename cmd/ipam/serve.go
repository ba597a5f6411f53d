package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/demo"
	"pivirt.hu/ipam/web"
)

// shutdownGrace is how long in-flight requests may run after SIGTERM:
// longer than any request is allowed to, a GraphQL request's 30 s
// (internal/graphql), with time to write its answer.
const shutdownGrace = 35 * time.Second

// serve runs the console and the API until SIGINT or SIGTERM.
func serve(args []string, _ io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on")
	loadDemo := fs.Bool("demo", false, "load the example data (public pools, tenants acme and globex with VPCs; sites, VLANs numbered per site from a pool, a branch) once")
	secureCookie := fs.Bool("secure-cookie", false, "mark the session cookie Secure even on a loopback --listen (behind a TLS proxy on the same host)")
	var trustedProxies prefixesFlag
	fs.Var(&trustedProxies, "trusted-proxy", "a `CIDR` (or address) of proxies whose X-Forwarded-For names the client, for the limit of failed sign-ins (repeatable)")
	metricsListen := fs.String("metrics-listen", "", "`address` (host:port) to serve GET /metrics on for Prometheus without a token, apart from --listen (where /metrics needs an operator's bearer token)")
	dbf := databaseFlags{exclusive: true}
	dbf.register(fs)
	fs.StringVar(&dbf.routeListen, "route-listen", "127.0.0.1:0",
		"`address` (host:port) to listen on for the claims other ipam serve processes of the database forward to this one when it owns their pool, so that a pool's claims do not race each other (docs/scaling.md); the processes on other hosts must reach it (the default reaches this host's only); empty: make every claim here")
	fs.Func("log-level", "least `level` logged: debug (every request too), info (start-up, shutdown; the default), warn or error",
		func(v string) error { return logLevel.UnmarshalText([]byte(v)) })
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	svcs, closeAll, err := dbf.open(ctx, logger, true)
	if err != nil {
		return err
	}
	defer closeAll()
	svc, authn := svcs.ipam, svcs.users
	// The password of admin when this start created the operator, "" when
	// an earlier start did.
	password, _, err := authn.EnsureAdmin(ctx)
	if err != nil {
		return err
	}
	signIns := []demo.Login{{User: auth.AdminName, Role: string(auth.Operator), Password: password}}
	if *loadDemo {
		logins, loaded, err := demo.Load(ctx, svc, authn, svcs.numbers)
		if err != nil {
			return err
		}
		signIns = append(signIns, demo.Tenants...)
		for _, l := range logins {
			for i := range signIns {
				if signIns[i].User == l.User {
					signIns[i].Password = l.Password
				}
			}
		}
		if loaded {
			logger.Info("loaded the demo data")
		}
	}
	handler, err := web.New(web.Config{IPAM: svc, Numbers: svcs.numbers, Auth: authn, Logger: logger, Version: version, Metrics: svcs.metrics.Handler(),
		SecureCookies: *secureCookie || !loopback(*listen), TrustedProxies: trustedProxies})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("unable to listen on %s: %w", *listen, err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 2)
	go func() { served <- srv.Serve(ln) }()
	if *metricsListen != "" {
		mln, err := net.Listen("tcp", *metricsListen)
		if err != nil {
			return fmt.Errorf("unable to listen on %s for the metrics: %w", *metricsListen, err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", svcs.metrics.Handler())
		msrv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
			ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
		go func() { served <- msrv.Serve(mln) }()
		defer msrv.Close()
		fmt.Fprintf(stdout, "%shttp://%s/metrics\n", metricsPrefix, mln.Addr())
	}
	url := "http://" + ln.Addr().String()
	logger.Info("serving", "url", url, "version", version)
	printSignIns(stdout, signIns, dbf.setPasswordArgs())
	fmt.Fprintf(stdout, "%s%s (Ctrl-C stops it)\n", servingPrefix, url)

	select {
	case err := <-served:
		return fmt.Errorf("the server stopped: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing requests in flight", "grace", shutdownGrace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shutting down: %w", err)
	}
	return nil
}

// metricsPrefix starts the line that says where --metrics-listen serves.
const metricsPrefix = "Metrics for Prometheus, without a token: "

// servingPrefix starts the last line of ipam serve's start-up output,
// which gives the console's URL.
const servingPrefix = "PiVirt IPAM is serving on "

// passwordPrefix stands before a password in a line of the sign-ins.
const passwordPrefix = "password: "

// printSignIns writes the users to sign in as, just before the URL, so
// that the start-up output ends with what a newcomer needs: each user's
// password when this start created it (it is never shown again), or how
// to set a new one; dbArgs are the flags that reach this database.
func printSignIns(w io.Writer, users []demo.Login, dbArgs string) {
	fmt.Fprintln(w, "Sign in as:")
	for _, u := range users {
		role := u.Role
		if u.Namespaces != "" {
			role += " of " + u.Namespaces
		}
		how := passwordPrefix + u.Password + " (shown once)"
		if u.Password == "" {
			how = "password set at an earlier start; to set a new one: ipam user set-password " + u.User + " --password-stdin" + dbArgs
		}
		fmt.Fprintf(w, "  %-8s %-20s %s\n", u.User, role, how)
	}
}

// loopback reports whether the listen address is on the loopback
// interface: only then may the session cookie go without Secure, as the
// console is reached there over plain HTTP, unless --secure-cookie says
// that a proxy on the same host ends TLS. Anywhere else it is behind TLS,
// ended by a proxy.
func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// prefixesFlag collects the prefixes of a repeated flag: CIDRs, or single
// addresses.
type prefixesFlag []netip.Prefix

func (f *prefixesFlag) String() string {
	s := make([]string, len(*f))
	for i, p := range *f {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}

func (f *prefixesFlag) Set(v string) error {
	p, err := netip.ParsePrefix(v)
	if err != nil {
		a, aerr := netip.ParseAddr(v)
		if aerr != nil {
			return errors.New("want a CIDR such as 10.0.0.0/24, or an address")
		}
		a = a.Unmap().WithZone("")
		p = netip.PrefixFrom(a, a.BitLen())
	}
	*f = append(*f, p.Masked())
	return nil
}
