// Command ipam is PiVirt IPAM: the console, the GraphQL API and the
// allocator, on PostgreSQL. Run "ipam help" for its commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"pivirt.hu/ipam/internal/refusal"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usageText = `ipam: PiVirt IPAM, the address and number allocator

Usage:
  ipam serve   [--listen 127.0.0.1:8080] [--database-url URL] [--data-dir DIR]
               [--listen-database-url URL] [--secure-cookie] [--trusted-proxy CIDR]...
               [--demo] [--log-level debug|info|warn|error]
  ipam migrate [--database-url URL] [--listen-database-url URL] [--data-dir DIR]
  ipam apply -f FILE
  ipam get pools|allocations|vpcs [-n NAMESPACE] [-o yaml|table]
  ipam schema load FILE... [--branch B]
  ipam schema get [--branch B] [-o yaml|json]
  ipam branch create|list|rebase|merge|delete NAME
  ipam audit [--since DURATION|TIME] [--namespace NS] [--limit N]
  ipam user add NAME --role operator|tenant [--namespace PATTERN]... --password-stdin
  ipam user set-password NAME --password-stdin
  ipam user sessions end NAME
  ipam token create NAME
  ipam token revoke NAME
  ipam cluster rotate-secret
  ipam quota set PATTERN [--vpcs N] [--subnets N] [--floating-ips N] [--addresses N]
  ipam quota list
  ipam quota unset PATTERN
  ipam version

Without --database-url (or DATABASE_URL), ipam runs its own PostgreSQL in
--data-dir from the locally installed server binaries. When --database-url
goes through a connection pooler in transaction mode (PgBouncer), every
command takes --listen-database-url, a URL of the PostgreSQL server itself.
Run "ipam COMMAND -h" for the flags of a command.

Exit status: 0 done, 1 refused or failed, 2 a mistake in the command line,
75 the database did not answer (the same command may succeed in a moment).
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// logLevel is the least level logged: info, unless ipam serve's
// --log-level says otherwise.
var logLevel = new(slog.LevelVar)

// A command runs one "ipam NAME" with the arguments after NAME.
type command func(args []string, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error

var commands = map[string]command{
	"serve":   serve,
	"migrate": migrate,
	"apply":   apply,
	"get":     get,
	"schema":  schemaCommand,
	"branch":  branchCommand,
	"audit":   auditLog,
	"user":    userCommand,
	"token":   tokenCommand,
	"cluster": clusterCommand,
	"quota":   quotaCommand,
}

// run executes one command and returns the process's exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel}))
	slog.SetDefault(logger)
	var err error
	switch cmd, ok := commands[args[0]]; {
	case ok:
		err = cmd(args[1:], stdin, stdout, logger)
	case args[0] == "version":
		fmt.Fprintln(stdout, version)
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		fmt.Fprint(stdout, usageText)
	default:
		fmt.Fprintf(stderr, "ipam: unknown command %q\n\n%s", args[0], usageText)
		return 2
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(usageError)):
		fmt.Fprintln(stderr, "ipam:", err)
		return 2
	case err != nil && refusal.Classify(err).Retryable():
		fmt.Fprintln(stderr, "ipam:", err)
		fmt.Fprintln(stderr, "ipam: the database did not answer; the same command may succeed in a moment")
		return exitTempFail
	case err != nil:
		fmt.Fprintln(stderr, "ipam:", err)
		return 1
	}
	return 0
}

// exitTempFail is the exit code of a command the database could not serve
// now (EX_TEMPFAIL of sysexits.h): a script may run it again.
const exitTempFail = 75

// usageError is a mistake in a command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// parseFlags parses a command's flags and refuses stray arguments.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s takes no arguments, got %q", fs.Name(), fs.Args())}
	}
	return nil
}
