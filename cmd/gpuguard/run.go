package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gpuguard/gpuguard/internal/report"
)

// Exit codes (DESIGN.md): findings are not failures of the tool.
const (
	exitOK       = 0 // nothing at or above --fail-on
	exitError    = 1 // the tool could not do its job
	exitFindings = 2 // findings at or above --fail-on
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// exitError carries an exit code through cobra.
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitCodeError) Unwrap() error { return e.err }

// withCode returns an error that makes run exit with code. A nil err exits silently.
func withCode(code int, err error) error { return &exitCodeError{code: code, err: err} }

// env is what commands may touch of the outside world; tests replace it.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// isTerminal reports whether stdout is a terminal; stderrTerminal, stderr (progress).
	isTerminal     bool
	stderrTerminal bool
	stdinTerminal  bool
	// now is the clock (suppression expiry, policies' time.now_ns); tests fix it.
	now func() time.Time
}

// run is the whole program: parse args, run a command, return the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, now: time.Now}
	if f, ok := stdout.(*os.File); ok {
		e.isTerminal = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := stderr.(*os.File); ok {
		e.stderrTerminal = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := stdin.(*os.File); ok {
		e.stdinTerminal = term.IsTerminal(int(f.Fd()))
	}
	return runEnv(e, args)
}

func runEnv(e *env, args []string) int {
	root := newRootCommand(e)
	root.SetArgs(args)
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	err := root.ExecuteContext(e.ctx)
	if err == nil {
		return exitOK
	}
	var ce *exitCodeError
	if errors.As(err, &ce) {
		if ce.err != nil {
			fmt.Fprintf(e.stderr, "gpuguard: %v\n", ce.err)
		}
		return ce.code
	}
	// cobra's own errors: unknown command or flag, bad arguments.
	fmt.Fprintf(e.stderr, "gpuguard: %v\nRun 'gpuguard --help' for usage.\n", err)
	return exitError
}

func newRootCommand(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "gpuguard",
		Short: "Stop GPU overspend before it is merged",
		Long: `gpuguard finds every GPU instance that Terraform and Kubernetes manifests declare on AWS,
GCP and Azure, prices it per month from an embedded dated catalog, checks whether the attached
workload fits in GPU memory, evaluates cost guardrails and posts the cost diff on pull requests.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.AddCommand(newCheckCommand(e), newDiffCommand(e), newCommentCommand(e), newFitCommand(e), newProfileCommand(e), newPoliciesCommand(e), newPricingCommand(e), newVersionCommand(e))
	return root
}

func newVersionCommand(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(e.stdout, "gpuguard %s\n", version)
			return nil
		},
	}
}

// outputTarget opens --output (or stdout) and returns a close function.
func outputTarget(e *env, path string) (io.Writer, func() error, error) {
	if path == "" || path == "-" {
		return e.stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot write --output: %w", err)
	}
	return f, f.Close, nil
}

// defaultFormat is table on a terminal, JSON otherwise (scripts and CI logs).
func defaultFormat(e *env, flag string, toFile bool) (report.Format, error) {
	if flag != "" {
		return report.ParseFormat(flag)
	}
	if e.isTerminal && !toFile {
		return report.Table, nil
	}
	return report.JSON, nil
}
