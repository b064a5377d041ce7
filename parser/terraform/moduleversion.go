package terraform

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// The major version of a registry module that terraform init would fetch for a call, as far as
// a stand-in needs it: a module's defaults change between majors (terraform-aws-modules/eks v21
// made AL2023_x86_64_STANDARD the node groups' default ami_type, where v20 left the AMI to EKS),
// and a stand-in follows the defaults of the version the call gets.

// ModuleMajorInput is the input variable through which a stand-in learns that version: a
// number, or null when the call admits the newest release, whose number gpuguard does not know
// (no version constraint, or one without an upper bound). A stand-in that declares it is given
// it by the evaluator; the stand-in passes it on to its own submodules. Where it is null, a
// stand-in may still tell an older major from the arguments the call sets (the EKS stand-ins:
// cluster_name and cluster_version, which v21 renamed and rejects, mean v20).
const ModuleMajorInput = "gpuguard_module_major"

// ModuleMajor is the value of ModuleMajorInput for a module call: the highest major version
// its version constraint admits (terraform init takes the newest version that satisfies it),
// or, for a source that pins one (a Git ref or a Terragrunt tfr:// version), that version's
// major. It is null when nothing bounds the version.
func ModuleMajor(source, version string) cty.Value {
	if n, ok := admittedMajor(source, version); ok {
		return cty.NumberIntVal(int64(n))
	}
	return cty.NullVal(cty.Number)
}

// admittedMajor returns the highest major version a call admits, and false when none bounds it.
func admittedMajor(source, version string) (int, bool) {
	if strings.TrimSpace(version) != "" {
		return constraintMajor(version)
	}
	// git::https://github.com/terraform-aws-modules/terraform-aws-eks.git?ref=v20.8.5, or
	// Terragrunt's tfr:///terraform-aws-modules/eks/aws?version=21.0.0.
	_, query, ok := strings.Cut(source, "?")
	if !ok {
		return 0, false
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return 0, false
	}
	for _, key := range []string{"version", "ref"} {
		if v := q.Get(key); v != "" {
			// A ref that is a branch or a commit says nothing about the version.
			if parts, ok := versionParts(strings.TrimPrefix(v, "v")); ok {
				return parts[0], true
			}
		}
	}
	return 0, false
}

// constraintMajor reads a Terraform version constraint ("~> 20.0", ">= 19, < 21", "20.8.5")
// and returns the highest major version it admits: the least of its upper bounds. Lower bounds
// and exclusions do not lower the newest version init may take, and are not read.
// https://developer.hashicorp.com/terraform/language/expressions/version-constraints
func constraintMajor(constraint string) (int, bool) {
	best, bounded := 0, false
	bound := func(n int) {
		if !bounded || n < best {
			best, bounded = n, true
		}
	}
	for _, clause := range strings.Split(constraint, ",") {
		clause = strings.TrimSpace(clause)
		op := ""
		for _, o := range []string{"~>", ">=", "<=", "!=", "=", ">", "<"} {
			if rest, ok := strings.CutPrefix(clause, o); ok {
				op, clause = o, strings.TrimSpace(rest)
				break
			}
		}
		parts, ok := versionParts(strings.TrimPrefix(clause, "v"))
		if !ok {
			return 0, false // not a constraint Terraform accepts: nothing is known
		}
		switch op {
		case "", "=", "<=", "~>":
			// "~> 20.1" admits 20.x from 20.1, "~> 20.1.4" 20.1.x: the major is fixed either way.
			bound(parts[0])
		case "<":
			if len(parts) > 1 && (parts[1] > 0 || len(parts) > 2 && parts[2] > 0) {
				bound(parts[0])
			} else {
				bound(parts[0] - 1) // "< 21" and "< 21.0.0" stop before 21
			}
		}
	}
	return best, bounded
}

// versionParts parses "20", "20.8" or "20.8.5" (a pre-release or build suffix is dropped) into
// its numbers.
func versionParts(s string) ([]int, bool) {
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	fields := strings.Split(s, ".")
	if len(fields) == 0 || len(fields) > 3 {
		return nil, false
	}
	out := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}
