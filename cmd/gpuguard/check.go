package main

import (
	"github.com/spf13/cobra"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/check"
	"github.com/gpuguard/gpuguard/parser/terraform"
)

func newCheckCommand(e *env) *cobra.Command {
	var o commonOptions
	cmd := &cobra.Command{
		Use:   "check [PATH|-]...",
		Short: "Inventory, cost, memory fit and guardrails for files and directories",
		Long: `check finds the GPU resources in Terraform (HCL, Terragrunt units and plan JSON) and
Kubernetes manifests (with kustomize overlays and Helm charts) under the given paths
("-" reads standard input), prices each per month, and reports them.

Exit status: 0 when nothing reaches --fail-on, 1 when the tool could not do its job (bad flags,
unreadable or malformed input, unusable config), 2 when findings reach --fail-on.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(e, &o, args)
		},
	}
	o.bind(cmd)
	return cmd
}

func runCheck(e *env, o *commonOptions, paths []string) error {
	// Start reading the embedded catalog while flags, config and files are read.
	go catalog.Default()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	format, threshold, err := o.judging(e)
	if err != nil {
		return err
	}
	cfg, err := loadConfig(o.config, paths)
	if err != nil {
		return withCode(exitError, err)
	}
	cat, overlay, err := loadCatalog(o.catalog, o.fallback, cfg)
	if err != nil {
		return withCode(exitError, err)
	}
	engine, err := loadPolicies(e, o.policies, cfg)
	if err != nil {
		return withCode(exitError, err)
	}
	doc := check.Run(paths, check.Options{
		Config: cfg, Catalog: cat, Overlay: overlay, Region: o.region, Stdin: e.stdin,
		Terraform: terraform.Options{VarFiles: o.varFiles, Vars: o.vars}, Now: e.now(),
	})
	check.Guardrails(e.ctx, doc, nil, cfg, engine, e.now())
	return emit(e, o, format, threshold, doc, nil, engine)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
