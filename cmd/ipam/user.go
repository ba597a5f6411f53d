package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"pivirt.hu/ipam/internal/auth"
)

const userUsage = `Usage:
  ipam user add NAME --role operator|tenant [--namespace PATTERN]... --password-stdin
  ipam user set-password NAME --password-stdin   (also ends NAME's console sessions)
  ipam user sessions end NAME                    end NAME's console sessions, keeping the password`

// userCommand adds users, sets their passwords and ends their console
// sessions, as auth.System.
func userCommand(args []string, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return usageError{"user needs a subcommand\n" + userUsage}
	}
	switch args[0] {
	case "add":
		return userAdd(args[1:], stdin, stdout, logger)
	case "set-password":
		return userSetPassword(args[1:], stdin, stdout, logger)
	case "sessions":
		return userSessions(args[1:], stdout, logger)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, userUsage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown user subcommand %q\n%s", args[0], userUsage)}
}

func userAdd(args []string, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("user add", flag.ContinueOnError)
	role := fs.String("role", "", "operator (everything) or tenant (only its namespaces)")
	var namespaces stringsFlag
	fs.Var(&namespaces, "namespace", "a tenant's namespace pattern such as acme/prod or acme/* (repeatable)")
	passwordStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input")
	var dbf databaseFlags
	dbf.register(fs)
	name, err := parseNameAndFlags(fs, args)
	if err != nil {
		return err
	}
	if *role == "" {
		return usageError{"user add needs --role operator or --role tenant"}
	}
	if !*passwordStdin {
		return usageError{"user add needs --password-stdin: the password is read from standard input, never from the command line"}
	}
	password, err := readPassword(stdin)
	if err != nil {
		return err
	}
	// Refuse wrong fields before starting a database.
	if err := auth.ValidateUser(name, auth.Role(*role), namespaces, password); err != nil {
		return err
	}

	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		users := svcs.users
		if err := users.AddUser(ctx, auth.System, name, auth.Role(*role), namespaces, password); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Added the %s %q.\n", *role, name)
		return nil
	})
}

func userSetPassword(args []string, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("user set-password", flag.ContinueOnError)
	passwordStdin := fs.Bool("password-stdin", false, "read the password from the first line of standard input")
	var dbf databaseFlags
	dbf.register(fs)
	name, err := parseNameAndFlags(fs, args)
	if err != nil {
		return err
	}
	if !*passwordStdin {
		return usageError{"user set-password needs --password-stdin: the password is read from standard input, never from the command line"}
	}
	password, err := readPassword(stdin)
	if err != nil {
		return err
	}
	if err := auth.ValidatePassword(password); err != nil {
		return err
	}

	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		users := svcs.users
		if err := users.SetPassword(ctx, auth.System, name, password); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Set the password of %q and ended their console sessions.\n", name)
		return nil
	})
}

// userSessions runs "ipam user sessions end NAME": it ends every console
// session of NAME, in every ipam serve process, and leaves the password.
func userSessions(args []string, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return usageError{"user sessions needs a subcommand: end\n" + userUsage}
	}
	switch args[0] {
	case "end":
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, userUsage)
		return nil
	default:
		return usageError{fmt.Sprintf("unknown user sessions subcommand %q\n%s", args[0], userUsage)}
	}
	fs := flag.NewFlagSet("user sessions end", flag.ContinueOnError)
	var dbf databaseFlags
	dbf.register(fs)
	name, err := parseNameAndFlags(fs, args[1:])
	if err != nil {
		return err
	}

	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		users := svcs.users
		if err := users.EndSessions(ctx, auth.System, name); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Ended the console sessions of %q.\n", name)
		return nil
	})
}

// readPassword returns the first line of r without its line ending.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("unable to read the password from standard input: %w", err)
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return "", errors.New("no password on standard input: give it as the first line")
	}
	return line, nil
}

// parseNameAndFlags parses a command line of one NAME and flags, in any
// order ("alice --role tenant" or "--role tenant alice"), and returns NAME.
func parseNameAndFlags(fs *flag.FlagSet, args []string) (string, error) {
	positional, err := parsePositional(fs, args)
	if err != nil {
		return "", err
	}
	if len(positional) != 1 {
		return "", usageError{fmt.Sprintf("%s takes one NAME, got %q", fs.Name(), positional)}
	}
	return positional[0], nil
}

// parsePositional parses a command's flags, wherever they are among its
// positional arguments, and returns those; after "--", every argument is
// positional.
func parsePositional(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// stringsFlag collects the values of a repeated flag.
type stringsFlag []string

func (f *stringsFlag) String() string { return strings.Join(*f, ",") }

func (f *stringsFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}
