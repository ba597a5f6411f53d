package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"pivirt.hu/ipam/internal/auth"
	"pivirt.hu/ipam/internal/ipam"
	"pivirt.hu/ipam/internal/manifest"
)

const applyUsage = `Usage:
  ipam apply -f FILE

Creates the public pools of FILE (- for standard input), YAML documents in
the form ipam get pools -o yaml prints, all of them or none. A pool that
exists with the same spec is left unchanged.`

// apply creates the public pools of a manifest, as auth.System: all of them
// or, when one is refused, none.
func apply(args []string, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	file := fs.String("f", "", "the manifest: a YAML file of IPAMPool documents, - for standard input")
	var dbf databaseFlags
	dbf.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), applyUsage)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *file == "" {
		return usageError{"apply needs -f FILE, or -f - to read the manifest from standard input"}
	}
	pools, err := readManifest(*file, stdin)
	if err != nil {
		return err
	}

	return dbf.withService(logger, func(ctx context.Context, svc *ipam.Service) error {
		before, err := svc.Pools(ctx, auth.System, ipam.Public, "")
		if err != nil {
			return err
		}
		existing := make(map[string]string, len(before)) // uid by name
		for _, p := range before {
			existing[p.Name] = p.UID
		}
		applied, err := svc.ApplyPublicPools(ctx, auth.System, pools)
		var refused *ipam.ApplyError
		if errors.As(err, &refused) {
			return fmt.Errorf("%s/%s: %w", strings.ToLower(manifest.KindPool), refused.Name, refused.Err)
		}
		if err != nil {
			return err
		}
		for _, p := range applied {
			state := "created"
			if existing[p.Name] == p.UID {
				state = "unchanged"
			}
			fmt.Fprintf(stdout, "%s/%s %s\n", strings.ToLower(manifest.KindPool), p.Name, state)
		}
		return nil
	})
}

// readManifest parses the manifest in file, or on stdin for "-".
func readManifest(file string, stdin io.Reader) ([]ipam.CreatePublicPoolInput, error) {
	if file == "-" {
		return manifest.Parse(stdin)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("unable to read the manifest: %w", err)
	}
	defer f.Close()
	return manifest.Parse(f)
}
