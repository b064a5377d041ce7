package terraform

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/gpuguard/gpuguard/parser"
)

// ModulesManifest is where `terraform init` records the modules it downloaded (registry, git,
// HTTP sources), relative to the root module.
const ModulesManifest = ".terraform/modules/modules.json"

// downloadedModule is one entry of the manifest. Key is the path of module call names from the
// root ("eks", "eks.kms"); Dir is relative to the root module's directory.
type downloadedModule struct {
	Key     string `json:"Key"`
	Source  string `json:"Source"`
	Version string `json:"Version"`
	Dir     string `json:"Dir"`
}

// downloaded reads the root module's manifest (in its modules home) once per evaluation. A root never initialised has
// none; a manifest that cannot be read is a warning and is then ignored.
func (ev *evaluation) downloaded() map[string]downloadedModule {
	if ev.modulesRead {
		return ev.modulesByKey
	}
	ev.modulesRead = true
	path := filepath.Join(ev.modulesHome, filepath.FromSlash(ModulesManifest))
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var m struct {
		Modules []downloadedModule `json:"Modules"`
	}
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		ev.l.warns = append(ev.l.warns, parser.Error{File: path, Message: fmt.Sprintf("cannot read the downloaded modules' manifest (run terraform init again): %v", err)})
		return nil
	}
	ev.modulesByKey = map[string]downloadedModule{}
	for _, d := range m.Modules {
		if d.Key != "" && d.Dir != "" {
			ev.modulesByKey[d.Key] = d
		}
	}
	return ev.modulesByKey
}

// downloadedDir finds the directory `terraform init` downloaded a non-local module call to. It
// answers "" and why not when there is none, or when it was downloaded for another source or a
// version the call's constraint does not admit (the configuration changed since terraform init:
// a pull request that bumps a module's version, whose base is read with the working tree's
// downloads, must not price the base with the new version's code).
func (mi *moduleInstance) downloadedDir(name, source, constraint string) (dir, why string) {
	key := name
	for p := mi; p != nil && p.call != nil; p = p.parent {
		key = p.call.name + "." + key
	}
	d, ok := mi.ev.downloaded()[key]
	if !ok {
		return "", "gpuguard follows local modules and the ones terraform init downloaded: run terraform init to include it"
	}
	if !sameSource(d.Source, source) {
		return "", fmt.Sprintf("%s holds it for source %q: run terraform init again", ModulesManifest, d.Source)
	}
	if ok, known := admits(constraint, d.Version); known && !ok {
		return "", fmt.Sprintf("%s holds version %s, which the call's version constraint %q does not admit: run terraform init again", ModulesManifest, d.Version, constraint)
	}
	if filepath.IsAbs(d.Dir) {
		return filepath.Clean(d.Dir), ""
	}
	return filepath.Clean(filepath.Join(mi.ev.modulesHome, filepath.FromSlash(d.Dir))), ""
}

// admits reports whether a version terraform init recorded satisfies a module call's version
// constraint, by Terraform's own rules (hashicorp/go-version, which Terraform uses: "~> 20.0",
// ">= 19, < 21", "20.8.5"). known is false when either is empty or cannot be read: the
// download is then trusted, as before the constraint was checked.
// https://developer.hashicorp.com/terraform/language/expressions/version-constraints
func admits(constraint, recorded string) (ok, known bool) {
	if strings.TrimSpace(constraint) == "" || strings.TrimSpace(recorded) == "" {
		return false, false
	}
	c, err := version.NewConstraint(constraint)
	if err != nil {
		return false, false
	}
	v, err := version.NewVersion(recorded)
	if err != nil {
		return false, false
	}
	return c.Check(v), true
}

// sameSource compares a module call's source with the one terraform init recorded, which spells
// registry modules with their host ("registry.terraform.io/terraform-aws-modules/eks/aws").
func sameSource(recorded, source string) bool {
	trim := func(s string) string { return strings.TrimPrefix(strings.TrimSpace(s), "registry.terraform.io/") }
	return trim(recorded) == trim(source)
}

// downloadedProblems turns the errors found in the files of downloaded modules into warnings:
// terraform init fetched that code and Terraform accepts it, so what gpuguard cannot evaluate
// there is a gap in its reading (said, with the file and line), not the user's input error.
func (ev *evaluation) downloadedProblems(errs, warns []parser.Error) ([]parser.Error, []parser.Error) {
	var kept []parser.Error
	for _, e := range errs {
		if ev.inDownloaded(e.File) {
			e.Message = "in a module terraform init downloaded (not counted where it could not be read): " + e.Message
			warns = append(warns, e)
			continue
		}
		if isStandIn(e.File) {
			e.Message = "in gpuguard's stand-in for a registry module (not counted where it could not be read): " + e.Message
			warns = append(warns, e)
			continue
		}
		kept = append(kept, e)
	}
	return kept, warns
}

func (ev *evaluation) inDownloaded(file string) bool {
	f := filepath.Clean(file)
	for _, d := range ev.followed {
		if f == d || strings.HasPrefix(f, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
