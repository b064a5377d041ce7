package policies

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/result"
)

//go:embed rego/builtin/*.rego
var builtinFS embed.FS

// BuiltinPackagePrefix is where built-in rules live; user policies may not use it.
const BuiltinPackagePrefix = "gpuguard.builtin"

// Rule describes a rule package: a built-in one (from its METADATA) or a user's.
type Rule struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Severity    result.Severity `json:"severity"`
	Package     string          `json:"package"`
	File        string          `json:"file"`
	Builtin     bool            `json:"builtin"`
}

// source is one Rego file.
type source struct {
	name string
	text string
	test bool
}

func parse(s source) (*ast.Module, error) {
	return ast.ParseModuleWithOpts(s.name, s.text, ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1})
}

// builtinSources returns the embedded rules (and their tests when tests is true).
func builtinSources(tests bool) []source {
	var out []source
	_ = fs.WalkDir(builtinFS, "rego/builtin", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return err
		}
		isTest := strings.HasSuffix(p, "_test.rego")
		if isTest && !tests {
			return nil
		}
		b, err := builtinFS.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, source{name: "builtin/" + path.Base(p), text: string(b), test: isTest})
		return nil
	})
	return out
}

// maxPolicyFile bounds one policy file.
const maxPolicyFile = 4 << 20

// userSources reads the .rego files under dirs (recursively, skipping hidden directories).
func userSources(dirs []string, tests bool) ([]source, error) {
	var out []source
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("policy directory %s: %w", dir, err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("policy directory %s: not a directory", dir)
		}
		inside := confine.NewDirs(dir)
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != dir && strings.HasPrefix(d.Name(), ".") {
					return fs.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".rego") {
				return nil
			}
			isTest := strings.HasSuffix(p, "_test.rego")
			if isTest && !tests {
				return nil
			}
			// A policy file may be a link, but not out of its directory: the directory's
			// content is a pull request's, and Rego parse errors quote the offending line.
			b, err := inside.ReadFile(p, maxPolicyFile)
			if err != nil {
				return err
			}
			out = append(out, source{name: p, text: string(b), test: isTest})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("policy directory %s: %w", dir, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// packageOf returns a module's package path without the data. prefix.
func packageOf(m *ast.Module) string {
	return strings.TrimPrefix(m.Package.Path.String(), "data.")
}

// ruleOf reads a module's package METADATA.
func ruleOf(m *ast.Module, file string, builtin bool) *Rule {
	r := &Rule{Package: packageOf(m), File: file, Builtin: builtin}
	for _, a := range m.Annotations {
		if a.Scope != "package" {
			continue
		}
		r.Title, r.Description = a.Title, strings.TrimSpace(a.Description)
		if id, ok := a.Custom["id"].(string); ok {
			r.ID = id
		}
		if sev, ok := a.Custom["severity"].(string); ok {
			r.Severity = result.Severity(sev)
		}
	}
	return r
}

// Builtins lists the built-in rules from their metadata, by id.
func Builtins() ([]*Rule, error) {
	var out []*Rule
	for _, s := range builtinSources(false) {
		m, err := parse(s)
		if err != nil {
			return nil, err
		}
		if r := ruleOf(m, s.name, true); r.ID != "" {
			out = append(out, r) // lib.rego holds helpers, not a rule
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
