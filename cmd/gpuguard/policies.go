package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/report"
	"github.com/gpuguard/gpuguard/policies"
)

// loadPolicies compiles the built-in rules with the --policy directories and the config's.
func loadPolicies(e *env, flags []string, cfg *config.Config) (*policies.Engine, error) {
	if err := policies.ValidateSeverities(cfg); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	dirs := append([]string(nil), flags...)
	for i, d := range cfg.Policies {
		dir, err := cfg.ResolveInside(fmt.Sprintf("policies.%d", i), d)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, dir)
	}
	engine, err := policies.New(e.ctx, policies.Options{Dirs: dirs, Now: e.now})
	if err != nil {
		var ce *policies.CompileError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("policies do not compile:\n%s", ce.Error())
		}
		return nil, err
	}
	return engine, nil
}

func newPoliciesCommand(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "policies", Short: "Built-in guardrails and policy tests"}
	var format string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the built-in rules with ids, severities and descriptions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rules, err := policies.Builtins()
			if err != nil {
				return withCode(exitError, err)
			}
			f, err := defaultFormat(e, format, false)
			if err != nil {
				return withCode(exitError, err)
			}
			if f == report.JSON {
				return report.WriteJSON(e.stdout, rules)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSEVERITY\tTITLE")
			for _, r := range rules {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Title)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, "\nDescriptions, thresholds and suppressions: docs/policies.md")
			return nil
		},
	}
	list.Flags().StringVar(&format, "format", "", "table or json")
	var verbose bool
	test := &cobra.Command{
		Use:   "test DIR...",
		Short: "Run the Rego unit tests (test_ rules in *_test.rego) of your policies",
		Long: `test runs the test_ rules of the _test.rego files under the directories, with gpuguard's
built-in rules loaded (data.gpuguard.builtin.*) and in the same sandbox as checks.
Exit status: 0 when every test passes, 1 when a test fails or a policy does not compile.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			results, err := policies.RunTests(e.ctx, dirs, false)
			if err != nil {
				return withCode(exitError, err)
			}
			failed := 0
			for _, r := range results {
				if !r.Pass {
					failed++
					fmt.Fprintf(e.stdout, "FAIL %s.%s (%s:%d): %s\n", r.Package, r.Name, filepath.ToSlash(r.File), r.Line, r.Error)
				} else if verbose {
					fmt.Fprintf(e.stdout, "PASS %s.%s (%s)\n", r.Package, r.Name, r.Duration)
				}
			}
			if len(results) == 0 {
				return withCode(exitError, fmt.Errorf("no test_ rules found under %v", dirs))
			}
			fmt.Fprintf(e.stdout, "%d/%d tests passed\n", len(results)-failed, len(results))
			if failed > 0 {
				return withCode(exitError, nil)
			}
			return nil
		},
	}
	test.Flags().BoolVarP(&verbose, "verbose", "v", false, "list passing tests too")
	cmd.AddCommand(list, test)
	return cmd
}
