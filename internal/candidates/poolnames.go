package candidates

import "strings"

// privatePoolPrefix starts the name of every VPC's private pool.
const privatePoolPrefix = "vpc-"

// PrivatePoolName is the name of the private pool of the VPC named vpc,
// made and removed with it: "vpc-<vpc>", in the VPC's namespace.
func PrivatePoolName(vpc string) string { return privatePoolPrefix + vpc }

// PrivatePoolVPC is the reverse of PrivatePoolName: the name of the VPC
// whose private pool is named pool, and whether pool is named as a VPC's
// private pool is.
func PrivatePoolVPC(pool string) (vpc string, ok bool) {
	return strings.CutPrefix(pool, privatePoolPrefix)
}
