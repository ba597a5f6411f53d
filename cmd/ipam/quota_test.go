package main

import (
	"regexp"
	"testing"

	"pivirt.hu/ipam/internal/pgtest"
)

// updated matches the UPDATED column of ipam quota list.
var updated = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// TestQuotaCommands sets, changes, lists and unsets quotas with ipam
// quota, has a manifest refused past one word for word, and has
// mistakes of the command line and of the limits refused.
func TestQuotaCommands(t *testing.T) {
	url := pgtest.NewURL(t)
	env := []string{"DATABASE_URL=" + url}
	wantRun(t, env, 0, "set the quota of acme/*: each namespace it matches may hold 1 VPC and 2 floating IPs\n", "",
		"quota", "set", "acme/*", "--vpcs", "1", "--floating-ips", "2")
	wantRun(t, env, 0, "set the quota of acme/*: each namespace it matches may hold 1 VPC, 3 subnets and 2 floating IPs\n", "",
		"quota", "set", "--subnets", "3", "acme/*")
	wantRun(t, env, 0, "set the quota of acme/prod: each namespace it matches may hold 100 addresses\n", "",
		"quota", "set", "acme/prod", "--addresses", "100")
	wantRun(t, env, 0, "set the quota of acme/*: each namespace it matches may hold 3 subnets and 2 floating IPs\n", "",
		"quota", "set", "acme/*", "--vpcs", "none")
	wantRun(t, env, 0, "set the quota of acme/*: each namespace it matches may hold 1 VPC, 3 subnets and 2 floating IPs\n", "",
		"quota", "set", "acme/*", "--vpcs", "1")
	out := updated.ReplaceAllString(mustRun(t, "", env, "quota", "list"), "YYYY-MM-DDTHH:MM:SSZ")
	if want := lines(
		"PATTERN    VPCS  SUBNETS  FLOATING IPS  ADDRESSES  UPDATED               BY",
		"acme/*     1     3        2             -          YYYY-MM-DDTHH:MM:SSZ  system",
		"acme/prod  -     -        -             100        YYYY-MM-DDTHH:MM:SSZ  system",
	); out != want {
		t.Errorf("ipam quota list printed\n%s\nwant\n%s", out, want)
	}

	vpc := func(name, cidr string) string { return vpcManifest(name, cidr, "") }
	wantRun(t, env, 1, "", "ipam: vpc/acme/prod/lab: namespace acme/prod has reached its quota of 1 VPC (set for acme/*)\n",
		"apply", "-f", writeManifest(t, vpc("main", "10.42.0.0/16")+"---\n"+vpc("lab", "10.43.0.0/16")))

	wantRun(t, env, 0, "unset the quota of acme/*, which allowed 1 VPC, 3 subnets and 2 floating IPs\n", "", "quota", "unset", "acme/*")
	wantRun(t, env, 1, "", "ipam: quota acme/* not found\n", "quota", "unset", "acme/*")
	if out := mustRun(t, "", env, "apply", "-f", writeManifest(t, vpc("main", "10.42.0.0/16")+"---\n"+vpc("lab", "10.43.0.0/16"))); out != "vpc/acme/prod/main created\nvpc/acme/prod/lab created\n" {
		t.Errorf("ipam apply without the quota printed %q", out)
	}

	wantRun(t, env, 1, "", "ipam: a limit of -1 VPCs is out of range: 0 to 2147483647\n", "quota", "set", "acme/*", "--vpcs", "-1")
	wantRun(t, env, 1, "", "ipam: pattern \"acme/**\" is not a namespace pattern such as acme/prod or acme/*\n", "quota", "set", "acme/**", "--vpcs", "1")
	wantRun(t, env, 1, "", "ipam: the quota of acme/prod would have no limit left: unset it instead\n", "quota", "set", "acme/prod", "--addresses", "none")
	for _, args := range [][]string{
		{"quota"}, {"quota", "raise"}, {"quota", "set", "acme/*"}, {"quota", "set", "--vpcs", "1"},
		{"quota", "set", "acme/*", "--vpcs", "many"}, {"quota", "unset"}, {"quota", "list", "acme/*"},
	} {
		if code, _, _ := runWithStdin(t, "", env, args...); code != 2 {
			t.Errorf("ipam %q exited %d, want 2", args, code)
		}
	}
}
