package scan

import (
	"path"
	"path/filepath"
	"strings"
)

// Flux's source-controller leaves some files out of the artifact a Kustomization builds from:
// version control files always, and by default (when the GitRepository sets no spec.ignore)
// pictures, archives and CI and tool configuration. Names starting with "." are not read by
// gpuguard at all (repoTree), so only the others are listed here.
// https://fluxcd.io/flux/components/source/gitrepositories/#excluding-files
// https://github.com/fluxcd/source-controller/pull/329 (the CI and tool defaults)
const (
	fluxDefaultIgnore = "*.jpg\n*.jpeg\n*.gif\n*.png\n*.wmv\n*.flv\n*.tar.gz\n*.zip\n" +
		"appveyor.yml\ncloudbuild.yaml\ncodeship-services.yml\ncodeship-steps.yml\n"
	sourceIgnoreFile = ".sourceignore"
)

// ignorePattern is one line of a .gitignore-format list (a .sourceignore, a GitRepository's
// spec.ignore): parts are its glob segments, matched from domain (the directory, as path
// segments, of the .sourceignore it comes from). A pattern with no slash but a trailing one
// matches at any depth ("**" is put before it).
type ignorePattern struct {
	domain  []string
	parts   []string
	negate  bool
	dirOnly bool
}

// sourceIgnore is a list of patterns: the last one that matches a path decides whether it is
// left out. A pattern that matches a directory leaves out what is below it.
type sourceIgnore []ignorePattern

// parseIgnore reads the patterns of text, from domain (a slash path, "" for the root).
func parseIgnore(text, domain string) sourceIgnore {
	var dom []string
	if domain != "" {
		dom = strings.Split(domain, "/")
	}
	var out sourceIgnore
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := ignorePattern{domain: dom}
		if p.negate = strings.HasPrefix(line, "!"); p.negate {
			line = line[1:]
		}
		if p.dirOnly = strings.HasSuffix(line, "/"); p.dirOnly {
			line = strings.TrimRight(line, "/")
		}
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		if line == "" {
			continue
		}
		p.parts = strings.Split(line, "/")
		if !anchored {
			p.parts = append([]string{"**"}, p.parts...)
		}
		out = append(out, p)
	}
	return out
}

// ignored reports whether the file or directory at rel (a slash path from the repository's
// root) is left out.
func (s sourceIgnore) ignored(rel string, isDir bool) bool {
	segs := strings.Split(rel, "/")
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].match(segs, isDir) {
			return !s[i].negate
		}
	}
	return false
}

// match reports whether p matches the path segs or one of the directories above it. It tracks
// which prefixes of the path the pattern's first segments match, segment by segment, so a
// pattern of many "**" costs no more than one.
func (p ignorePattern) match(segs []string, isDir bool) bool {
	if len(segs) <= len(p.domain) {
		return false
	}
	for i, d := range p.domain {
		if segs[i] != d {
			return false
		}
	}
	segs = segs[len(p.domain):]
	n := len(segs)
	cur := make([]bool, n+1) // cur[j]: the segments so far match segs[:j]
	cur[0] = true
	for _, part := range p.parts {
		next := make([]bool, n+1)
		if part == "**" {
			seen := false
			for j := 0; j <= n; j++ {
				seen = seen || cur[j]
				next[j] = seen
			}
		} else {
			for j := 0; j < n; j++ {
				if ok, _ := path.Match(part, segs[j]); cur[j] && ok {
					next[j+1] = true
				}
			}
		}
		cur = next
	}
	for j := 1; j <= n; j++ {
		// Matching a directory above the path (j < n) leaves out what is below it.
		if cur[j] && (j < n || isDir || !p.dirOnly) {
			return true
		}
	}
	return false
}

// fluxIgnore is what Flux leaves out of a GitRepository's files: its default patterns, or the
// GitRepository's spec.ignore in their place (after the .sourceignore files), and the patterns
// of the .sourceignore files in root and the directories of entries.
func fluxIgnore(root string, entries []treeEntry, opts Options, spec *string) sourceIgnore {
	var out sourceIgnore
	if spec == nil {
		out = parseIgnore(fluxDefaultIgnore, "")
	}
	read := func(dir string) {
		data, err := opts.links.ReadFile(filepath.Join(root, filepath.FromSlash(dir), sourceIgnoreFile), helmValuesLimit)
		if err == nil {
			out = append(out, parseIgnore(string(data), dir)...)
		}
	}
	read("")
	for _, e := range entries {
		if e.dir {
			read(e.rel)
		}
	}
	if spec != nil {
		out = append(out, parseIgnore(*spec, "")...)
	}
	return out
}
