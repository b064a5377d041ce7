package terraform

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/parser"
)

// rootValue is a value given for a root variable, with where it came from.
type rootValue struct {
	value cty.Value
	raw   *string // a --var value, typed once the variable's type is known
	rng   hcl.Range
}

// IsAutoVarFile reports whether Terraform loads a file of this name by itself.
func IsAutoVarFile(name string) bool {
	return name == "terraform.tfvars" || name == "terraform.tfvars.json" ||
		strings.HasSuffix(name, ".auto.tfvars") || strings.HasSuffix(name, ".auto.tfvars.json")
}

// SortAutoVarFiles orders variable files the way Terraform applies them.
func SortAutoVarFiles(files []string) {
	rank := func(p string) int {
		switch filepath.Base(p) {
		case "terraform.tfvars":
			return 0
		case "terraform.tfvars.json":
			return 1
		}
		return 2
	}
	sort.SliceStable(files, func(i, j int) bool {
		ri, rj := rank(files[i]), rank(files[j])
		if ri != rj {
			return ri < rj
		}
		return filepath.Base(files[i]) < filepath.Base(files[j])
	})
}

// AutoVarFiles lists the variable files Terraform loads by itself from dir (links followed only
// inside links), in its order:
// terraform.tfvars, terraform.tfvars.json, then *.auto.tfvars and *.auto.tfvars.json in lexical
// order. https://developer.hashicorp.com/terraform/language/values/variables#variable-definition-precedence
func AutoVarFiles(dir string, links confine.Dirs) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && IsAutoVarFile(n) && links.Entry(filepath.Join(dir, n), e.Type()) == confine.Read {
			out = append(out, filepath.Join(dir, n))
		}
	}
	SortAutoVarFiles(out)
	return out
}

// rootValues collects root variable values in Terraform's precedence, later ones winning:
// automatic files, then --var-file files, then --var flags.
func (l *loader) rootValues(dir string, opts Options, links confine.Dirs) map[string]rootValue {
	vals := map[string]rootValue{}
	for name, in := range opts.Inputs {
		vals[name] = rootValue{value: in.Value, rng: in.Range}
	}
	files := opts.AutoVarFiles
	if files == nil {
		files = AutoVarFiles(dir, links)
	}
	files = append(append([]string(nil), files...), opts.VarFiles...)
	for _, f := range files {
		sf := l.parseFile(f, nil, false)
		if sf == nil || sf.file == nil {
			continue
		}
		attrs, diags := sf.file.Body.JustAttributes()
		l.addDiags(diags)
		for name, a := range attrs {
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() {
				l.addDiags(diags)
				continue
			}
			vals[name] = rootValue{value: v, rng: a.Range}
		}
	}
	for _, kv := range opts.Vars {
		name, raw, ok := strings.Cut(kv, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			l.errs = append(l.errs, parser.Error{File: "--var", Message: fmt.Sprintf("%q: expected name=value", kv)})
			continue
		}
		r := raw
		vals[name] = rootValue{raw: &r, rng: hcl.Range{Filename: "--var " + name}}
	}
	return vals
}

// typedRaw turns a --var string into a value: primitive and untyped variables take the string
// as is, complex types parse it as an HCL expression, as Terraform does.
func (l *loader) typedRaw(decl *variableDecl, rv rootValue) (cty.Value, bool) {
	if decl.typ.IsPrimitiveType() || decl.typ == cty.DynamicPseudoType {
		return cty.StringVal(*rv.raw), true
	}
	expr, diags := hclsyntax.ParseExpression([]byte(*rv.raw), rv.rng.Filename, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		l.addDiags(diags)
		return cty.NilVal, false
	}
	v, diags := expr.Value(nil)
	if diags.HasErrors() {
		l.addDiags(diags)
		return cty.NilVal, false
	}
	return v, true
}
