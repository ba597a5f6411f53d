package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/branch"
	"pivirt.hu/ipam/internal/refusal"
	"pivirt.hu/ipam/internal/schema"
)

const schemaUsage = `Usage:
  ipam schema load FILE... [--branch B]   apply schema files (YAML or JSON; - for standard input)
  ipam schema get [--branch B] [-o yaml|json]

load applies the files to the schema of kinds of the branch (main by
default), all or nothing: new elements are added, an element given with its
id and a new name is renamed, one with state: absent removed. It prints
what it added, changed and removed, one element a line. A refused load
changes nothing and names every mistake by its file, kind and element.

get prints the schema with every id, in the form load takes back.`

// schemaCommand loads and prints the schema of kinds, as auth.System.
func schemaCommand(args []string, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if len(args) == 0 {
		return usageError{"schema needs a subcommand\n" + schemaUsage}
	}
	switch args[0] {
	case "load":
		return schemaLoad(args[1:], stdin, stdout, logger)
	case "get":
		return schemaGet(args[1:], stdout, logger)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, schemaUsage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown schema subcommand %q\n%s", args[0], schemaUsage)}
}

func schemaLoad(args []string, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("schema load", flag.ContinueOnError)
	branchName := fs.String("branch", branch.Main, "the `branch` whose schema to change")
	var dbf databaseFlags
	dbf.register(fs)
	paths, err := parsePositional(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usageError{"schema load needs at least one FILE (- for standard input)\n" + schemaUsage}
	}
	files, err := readSchemaFiles(paths, stdin)
	if err != nil {
		return err
	}
	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		changes, err := svcs.branches.LoadSchema(ctx, auth.System, *branchName, files...)
		if err != nil {
			return nameRefusedFiles(err, files)
		}
		counts := map[schema.Op]int{}
		for _, c := range changes {
			fmt.Fprintln(stdout, c)
			counts[c.Op]++
		}
		fmt.Fprintf(stdout, "schema of branch %s: %d added, %d changed, %d removed\n", *branchName,
			counts[schema.Added], counts[schema.Changed], counts[schema.Removed])
		return nil
	})
}

// readSchemaFiles reads and parses the schema files of paths (- being
// standard input), reporting the mistakes of every one.
func readSchemaFiles(paths []string, stdin io.Reader) ([]schema.File, error) {
	var files []schema.File
	var errs []error
	for _, path := range paths {
		var data []byte
		var err error
		if path == "-" {
			data, err = io.ReadAll(io.LimitReader(stdin, schema.MaxBytes+1))
		} else {
			data, err = os.ReadFile(path)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f, err := schema.Parse(path, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, f)
	}
	return files, errors.Join(errs...)
}

// nameRefusedFiles names the files of a load refused for the branch's
// objects. The domain, which is given files without knowing where they came
// from, writes such a refusal as the one of the file "schema" (the name
// GraphQL's schemaLoad gives its text): "schema: IpamVLAN.role cannot be
// made required: …". Here the files are named instead: those that write
// the kind refused, else every file loaded. Refusals of the files
// themselves already name theirs.
func nameRefusedFiles(err error, files []schema.File) error {
	var refusal *refusal.InvalidError
	if !errors.As(err, &refusal) || refusal.Field != "schema" || errors.As(err, new(schema.Errors)) {
		return err
	}
	rest, ok := strings.CutPrefix(refusal.Message, "schema: ")
	if !ok {
		return err
	}
	kind, _, _ := strings.Cut(strings.TrimPrefix(rest, "the kind "), " ")
	kind, _, _ = strings.Cut(kind, ".")
	kind = strings.TrimSuffix(kind, ":")
	var named, all []string
	for _, f := range files {
		all = append(all, f.Name)
		if slices.ContainsFunc(f.Kinds, func(k schema.KindSpec) bool { return k.Namespace+k.Name == kind }) {
			named = append(named, f.Name)
		}
	}
	if len(named) == 0 {
		named = all
	}
	return fileRefusal{msg: strings.Join(named, ", ") + ": " + rest, err: err}
}

// fileRefusal is a refusal of the domain with the files named.
type fileRefusal struct {
	msg string
	err error
}

func (e fileRefusal) Error() string { return e.msg }
func (e fileRefusal) Unwrap() error { return e.err }

func schemaGet(args []string, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("schema get", flag.ContinueOnError)
	branchName := fs.String("branch", branch.Main, "the `branch` whose schema to print")
	output := fs.String("o", "yaml", "output format: yaml or json, both in the form schema load takes")
	var dbf databaseFlags
	dbf.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *output != "yaml" && *output != "json" {
		return usageError{fmt.Sprintf("-o must be yaml or json, got %q", *output)}
	}
	return dbf.withServices(logger, false, func(ctx context.Context, svcs *services) error {
		s, err := svcs.branches.Schema(ctx, *branchName)
		if err != nil {
			return err
		}
		if *output == "json" {
			_, err = stdout.Write(s.JSON())
		} else {
			_, err = stdout.Write(s.YAML())
		}
		return err
	})
}
