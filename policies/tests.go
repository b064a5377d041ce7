package policies

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/tester"
)

// testsMemoryLimit bounds how much RunTests may grow the heap (a variable for tests).
var testsMemoryLimit uint64 = DefaultMemoryLimit

// testsTimeout bounds one test's evaluation (a variable for tests).
var testsTimeout = DefaultTimeout

// TestResult is one Rego unit test's outcome.
type TestResult struct {
	Package  string        `json:"package"`
	Name     string        `json:"name"`
	File     string        `json:"file"`
	Line     int           `json:"line"`
	Pass     bool          `json:"pass"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// RunTests runs the test_ rules of the policies in dirs (their _test.rego files), with the
// built-in rules loaded so tests can use them, in the same sandbox as checks. builtinTests adds
// gpuguard's own rule tests.
func RunTests(ctx context.Context, dirs []string, builtinTests bool) ([]TestResult, error) {
	user, err := userSources(dirs, true)
	if err != nil {
		return nil, err
	}
	sources := append(builtinSources(builtinTests), user...)
	modules, err := parseSources(sources)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	watchMemory(ctx, testsMemoryLimit, stop)
	c := sandboxCompiler()
	runner := tester.NewRunner().SetCompiler(c).SetModules(modules).SetTimeout(testsTimeout).
		AddCustomBuiltins([]*tester.Builtin{{Decl: dollarsDecl(), Func: withDollars()}})
	ch, err := runner.RunTests(ctx, nil)
	if err != nil {
		return nil, astProblems(err)
	}
	var out []TestResult
	for r := range ch {
		tr := TestResult{Package: strings.TrimPrefix(r.Package, "data."), Name: r.Name, Pass: r.Pass(), Duration: r.Duration}
		if r.Location != nil {
			tr.File, tr.Line = r.Location.File, r.Location.Row
		}
		if r.Error != nil {
			tr.Error = r.Error.Error()
		} else if r.Fail {
			tr.Error = "test failed"
			if r.FailedAt != nil {
				tr.Error = fmt.Sprintf("failed at %s", r.FailedAt.String())
			}
		}
		out = append(out, tr)
	}
	if errors.Is(context.Cause(ctx), errMemory) {
		return nil, fmt.Errorf("the tests grew memory by more than %d MiB and were stopped", testsMemoryLimit>>20)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}
