package policies

import (
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
)

// removedBuiltins are taken out of the capabilities every policy compiles against. A policy that
// calls one fails to compile, with its file and line.
//
//   - http.send and net.*: no network (net.lookup_ip_addr resolves names);
//   - opa.runtime: exposes the process environment (GITHUB_TOKEN) and configuration;
//   - rego.parse_module and rego.metadata.* are harmless but unneeded; kept.
func removed(name string) bool {
	return name == "http.send" || name == "opa.runtime" || strings.HasPrefix(name, "net.")
}

// SandboxCapabilities are OPA's capabilities without the removed builtins, with gpuguard.dollars,
// and with an empty network allow-list (no host may be contacted, not even for remote schemas).
func SandboxCapabilities() *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	kept := caps.Builtins[:0]
	for _, b := range caps.Builtins {
		if !removed(b.Name) {
			kept = append(kept, b)
		}
	}
	caps.Builtins = append(kept, dollarsDecl())
	caps.AllowNet = []string{}
	return caps
}

// RemovedBuiltins lists the builtins the sandbox takes away, for documentation and tests.
func RemovedBuiltins() []string {
	var out []string
	for _, b := range ast.CapabilitiesForThisVersion().Builtins {
		if removed(b.Name) {
			out = append(out, b.Name)
		}
	}
	return out
}
