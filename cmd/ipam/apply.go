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

Applies the IPAMPool and VPC documents of FILE (- for standard input), in
the form ipam get pools -o yaml and ipam get vpcs -o yaml print them: all
of them or, when one is refused, none.

A public pool or a VPC that does not exist is created, a VPC with its
subnets; one that exists as the document says is left unchanged. A
subnet the document adds to an existing VPC is created, and a pool's
labels are set as given (configured). What never changes is refused: a
pool's spec, a VPC's cidr, zone and uid, a subnet's cidr and gateway, and
their IPv6 prefixes and a VPC's ipv6Addressing. A VPC's private pools
(vpc-<name>, and vpc-<name>-v6 of a dual-stack VPC) are accepted as their
VPC made them; a VPC's metadata.uid is the uid it is created with; status
is ignored.

A VPC's IPv6 prefix is given (ipv6Cidr) or delegated from its zone's
delegation pools (ipv6PrefixLength, as ipam get vpcs prints a delegated
one): applied to another database, the VPC is delegated a prefix there.

Apply never deletes: a pool, VPC or subnet that FILE does not name stays
as it is.`

// apply applies the pools and VPCs of a manifest, as auth.System: all of
// them or, when one is refused, none.
func apply(args []string, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	file := fs.String("f", "", "the manifest: a YAML file of IPAMPool and VPC documents, - for standard input")
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
	objects, err := readManifest(*file, stdin)
	if err != nil {
		return err
	}

	return dbf.withService(logger, func(ctx context.Context, svc *ipam.Service) error {
		applied, err := svc.Apply(ctx, auth.System, objects)
		var refused *ipam.ApplyError
		if errors.As(err, &refused) {
			name := objectName(refused.Kind, refused.Namespace, refused.Name)
			if refused.Path != "" {
				name += ": " + refused.Path
			}
			return fmt.Errorf("%s: %w", name, refused.Err)
		}
		if err != nil {
			return err
		}
		for _, a := range applied {
			fmt.Fprintf(stdout, "%s %s\n", objectName(a.Kind, a.Namespace, a.Name), a.State)
		}
		return nil
	})
}

// objectName names an object as kubectl does, kind/name, with its
// namespace when it has one: ipampool/public-zone-a, vpc/acme/prod/main.
func objectName(kind, namespace, name string) string {
	if namespace != "" {
		name = namespace + "/" + name
	}
	return strings.ToLower(kind) + "/" + name
}

// readManifest parses the manifest in file, or on stdin for "-".
func readManifest(file string, stdin io.Reader) ([]ipam.ApplyObject, error) {
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
