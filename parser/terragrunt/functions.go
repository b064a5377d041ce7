package terragrunt

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/gpuguard/gpuguard/parser/terraform"
)

type functionT = function.Function

// functions are Terraform's functions (file() and its kin reading relative to the unit's
// directory, inside the checked directories) and Terragrunt's, for a file evaluated in scope sc
// at read_terragrunt_config depth depth.
//
// Terragrunt's documented built-in functions:
// https://terragrunt.gruntwork.io/docs/reference/built-in-functions/
func (u *unit) functions(sc scope, depth int) map[string]functionT {
	if u.tfFuncs == nil {
		u.tfFuncs = terraform.Functions(u.dir, u.opts)
	}
	funcs := maps.Clone(u.tfFuncs)
	str := func(s string) functionT {
		return function.New(&function.Spec{Type: function.StaticReturnType(cty.String), Impl: func([]cty.Value, cty.Type) (cty.Value, error) { return cty.StringVal(s), nil }})
	}
	// An optional include name picks the include a path function is about.
	includeNamed := func(args []cty.Value) (string, error) {
		name := ""
		if len(args) > 0 {
			name, _ = stringOf(args[0])
		}
		if name == "" && sc.current != "" {
			return sc.current, nil
		}
		if p, ok := sc.includes[name]; ok {
			return p, nil
		}
		if name == "" && len(sc.includes) == 1 {
			for _, p := range sc.includes {
				return p, nil
			}
		}
		if name != "" {
			return "", fmt.Errorf("no include named %q", name)
		}
		return "", nil
	}
	optionalName := []function.Parameter{}
	nameParam := &function.Parameter{Name: "name", Type: cty.String}
	funcs["get_terragrunt_dir"] = str(u.absDir)
	funcs["get_original_terragrunt_dir"] = str(u.absDir)
	funcs["get_parent_terragrunt_dir"] = function.New(&function.Spec{Params: optionalName, VarParam: nameParam, Type: function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p, err := includeNamed(args)
			if err != nil || p == "" {
				return cty.StringVal(u.absDir), err
			}
			return cty.StringVal(filepath.Dir(p)), nil
		}})
	relative := func(from bool) functionT {
		return function.New(&function.Spec{Params: optionalName, VarParam: nameParam, Type: function.StaticReturnType(cty.String),
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				p, err := includeNamed(args)
				if err != nil {
					return cty.NilVal, err
				}
				if p == "" {
					return cty.StringVal("."), nil
				}
				a, b := filepath.Dir(p), u.absDir
				if from {
					a, b = b, a
				}
				rel, err := filepath.Rel(a, b)
				if err != nil {
					return cty.NilVal, err
				}
				return cty.StringVal(filepath.ToSlash(rel)), nil
			}})
	}
	funcs["path_relative_to_include"] = relative(false)
	funcs["path_relative_from_include"] = relative(true)
	funcs["find_in_parent_folders"] = function.New(&function.Spec{VarParam: &function.Parameter{Name: "args", Type: cty.String}, Type: function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, errors.New("find_in_parent_folders takes a name and a fallback at most")
			}
			name := FileName
			if len(args) > 0 {
				name = args[0].AsString()
			}
			if p, ok := u.findInParents(name); ok {
				return cty.StringVal(p), nil
			}
			if len(args) == 2 {
				return args[1], nil
			}
			return cty.NilVal, fmt.Errorf("no %s in the parent folders of %s (inside the checked directories)", name, display(u.absDir))
		}})
	funcs["get_repo_root"] = function.New(&function.Spec{Type: function.StaticReturnType(cty.String), Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		root, err := u.repoRoot()
		return cty.StringVal(root), err
	}})
	repoRelative := func(to bool) functionT {
		return function.New(&function.Spec{Type: function.StaticReturnType(cty.String), Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			root, err := u.repoRoot()
			if err != nil {
				return cty.NilVal, err
			}
			a, b := root, u.absDir
			if to {
				a, b = b, a
			}
			rel, err := filepath.Rel(a, b)
			return cty.StringVal(filepath.ToSlash(rel)), err
		}})
	}
	funcs["get_path_from_repo_root"] = repoRelative(false)
	funcs["get_path_to_repo_root"] = repoRelative(true)
	funcs["read_terragrunt_config"] = function.New(&function.Spec{Params: []function.Parameter{{Name: "path", Type: cty.String}}, VarParam: &function.Parameter{Name: "default", Type: cty.DynamicPseudoType},
		Type: function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			path := args[0].AsString()
			if !filepath.IsAbs(path) {
				path = filepath.Join(u.absDir, path)
			}
			if _, err := u.dirs.Resolve(path); err != nil {
				if len(args) > 1 && errors.Is(err, fs.ErrNotExist) {
					return args[1], nil
				}
				return cty.NilVal, err
			}
			// Each file is read once per unit: a file read by many locals (or reading
			// another many times) costs one evaluation, and one on the way being read again
			// is a cycle, not a recursion without end.
			key := filepath.Clean(path)
			if v, ok := u.read[key]; ok {
				return v, nil
			}
			if u.reading[key] {
				return cty.NilVal, fmt.Errorf("%s reads itself (through read_terragrunt_config)", display(path))
			}
			if depth+1 > maxReadDepth {
				return cty.NilVal, fmt.Errorf("read_terragrunt_config is nested more than %d deep", maxReadDepth)
			}
			if u.reading == nil {
				u.reading, u.read = map[string]bool{}, map[string]cty.Value{}
			}
			u.reading[key] = true
			cfg := u.evalFile(path, nil, depth+1)
			delete(u.reading, key)
			if cfg == nil {
				return cty.NilVal, fmt.Errorf("%s could not be read", display(path))
			}
			u.read[key] = cfg.value()
			return u.read[key], nil
		}})
	funcs["get_env"] = function.New(&function.Spec{Params: []function.Parameter{{Name: "name", Type: cty.String}}, VarParam: &function.Parameter{Name: "default", Type: cty.String},
		Type: function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			// Never the environment: a pull request's configuration would read the token.
			if len(args) > 1 {
				return args[1], nil
			}
			return terraform.Unresolved(fmt.Sprintf("get_env(%q): gpuguard does not read the environment", args[0].AsString())), nil
		}})
	unknown := func(what string) functionT {
		return function.New(&function.Spec{VarParam: &function.Parameter{Name: "args", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true},
			Type: function.StaticReturnType(cty.DynamicPseudoType),
			Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
				return terraform.Unresolved(what), nil
			}})
	}
	funcs["run_cmd"] = unknown("run_cmd: gpuguard runs no commands")
	funcs["sops_decrypt_file"] = unknown("sops_decrypt_file: gpuguard decrypts nothing")
	for _, f := range []string{"get_aws_account_id", "get_aws_account_alias", "get_aws_caller_identity_arn", "get_aws_caller_identity_user_id"} {
		funcs[f] = unknown(f + ": known only with cloud credentials")
	}
	funcs["get_platform"] = unknown("get_platform: known only where Terragrunt runs")
	funcs["get_working_dir"] = unknown("get_working_dir: known only where Terragrunt runs")
	funcs["get_terraform_command"] = str("plan")
	funcs["get_terraform_cli_args"] = function.New(&function.Spec{Type: function.StaticReturnType(cty.List(cty.String)), Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		return cty.ListValEmpty(cty.String), nil
	}})
	commands := func(cmds ...string) functionT {
		vals := make([]cty.Value, len(cmds))
		for i, c := range cmds {
			vals[i] = cty.StringVal(c)
		}
		return function.New(&function.Spec{Type: function.StaticReturnType(cty.List(cty.String)), Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return cty.ListVal(vals), nil
		}})
	}
	funcs["get_terraform_commands_that_need_vars"] = commands("apply", "console", "destroy", "import", "plan", "push", "refresh")
	funcs["get_terraform_commands_that_need_input"] = commands("apply", "import", "init", "plan", "refresh")
	funcs["get_terraform_commands_that_need_locking"] = commands("apply", "destroy", "import", "init", "plan", "refresh", "taint", "untaint")
	funcs["get_terraform_commands_that_need_parallelism"] = commands("apply", "plan", "destroy")
	funcs["get_default_retryable_errors"] = function.New(&function.Spec{Type: function.StaticReturnType(cty.List(cty.String)), Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		return cty.ListValEmpty(cty.String), nil
	}})
	funcs["mark_as_read"] = function.New(&function.Spec{Params: []function.Parameter{{Name: "path", Type: cty.String}}, Type: function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) { return args[0], nil }})
	return funcs
}

// findInParents looks for name in the unit directory's parents, up to the edge of the checked
// directories, and returns its absolute path.
func (u *unit) findInParents(name string) (string, bool) {
	dir := u.absDir
	for range 100 {
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
		if _, err := u.dirs.Resolve(dir); err != nil {
			return "", false // past the checked directories
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			if _, err := u.dirs.Resolve(p); err == nil {
				return p, true
			}
		}
	}
	return "", false
}

// repoRoot is the closest directory above the unit with a .git, inside the checked directories.
func (u *unit) repoRoot() (string, error) {
	for dir := u.absDir; ; {
		if _, err := u.dirs.Resolve(dir); err != nil {
			break
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", fmt.Errorf("no git repository above %s inside the checked directories", display(u.absDir))
}

// value is a configuration as read_terragrunt_config returns it: its locals, inputs, terraform
// source, dependencies and other attributes.
func (c *config) value() cty.Value {
	out := map[string]cty.Value{}
	for k, v := range c.others {
		out[k] = v
	}
	out["locals"] = cty.ObjectVal(c.locals)
	inputs := map[string]cty.Value{}
	for k, v := range c.inputs {
		inputs[k] = v.Value
	}
	out["inputs"] = cty.ObjectVal(inputs)
	if c.source != nil {
		out["terraform"] = cty.ObjectVal(map[string]cty.Value{"source": cty.StringVal(c.source.value)})
	}
	if len(c.deps) > 0 {
		out["dependency"] = cty.ObjectVal(c.deps)
	}
	return cty.ObjectVal(out)
}
