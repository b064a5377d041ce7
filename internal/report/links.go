package report

import (
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/result"
)

// SourceLinks turns the files and lines of a report into links to those lines on GitHub, so
// that a resource named in a pull-request comment opens where it is declared. A nil
// *SourceLinks links nothing.
type SourceLinks struct {
	head, base string // https://github.com/OWNER/NAME/blob/SHA, without a trailing slash
	top        string // the repository's top, absolute, for the report's absolute paths
	dir        string // where the report's relative paths start, from the top ("" at the top)
}

var (
	shaPattern  = regexp.MustCompile(`^[0-9a-fA-F]{7,64}$`)
	repoPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
)

// IsCommit reports whether s can name a commit in a link: 7 to 64 hexadecimal digits.
func IsCommit(s string) bool { return shaPattern.MatchString(s) }

// NewSourceLinks links files at commit head (and removed resources at commit base, when it is
// set) of repo (OWNER/NAME) on server (https://github.com, or a GitHub Enterprise host). top is
// the repository's top directory (absolute) and cwd the directory the report's relative paths
// start from. It returns nil when what a link needs is missing or malformed: no link is better
// than a wrong one.
func NewSourceLinks(server, repo, head, base, top, cwd string) *SourceLinks {
	server = strings.TrimRight(server, "/")
	u, err := url.Parse(server)
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" || !repoPattern.MatchString(repo) || !shaPattern.MatchString(head) ||
		!filepath.IsAbs(top) || !filepath.IsAbs(cwd) {
		return nil
	}
	dir, err := filepath.Rel(top, cwd)
	if err != nil || dir == ".." || strings.HasPrefix(dir, ".."+string(filepath.Separator)) {
		return nil // the report's paths are outside the repository
	}
	l := &SourceLinks{head: server + "/" + repo + "/blob/" + head, top: filepath.Clean(top), dir: filepath.ToSlash(dir)}
	if l.dir == "." {
		l.dir = ""
	}
	if shaPattern.MatchString(base) {
		l.base = server + "/" + repo + "/blob/" + base
	}
	return l
}

// URL is the link to line of file at the head commit (base: the base commit), or "" when the
// file is not in the repository or there is no commit to link to.
func (l *SourceLinks) URL(file string, line int, base bool) string {
	if l == nil || file == "" || file == "-" {
		return ""
	}
	prefix := l.head
	if base {
		prefix = l.base
	}
	if prefix == "" {
		return ""
	}
	var rel string
	if filepath.IsAbs(file) {
		r, err := filepath.Rel(l.top, file)
		if err != nil {
			return ""
		}
		rel = filepath.ToSlash(r)
	} else {
		rel = path.Join(l.dir, filepath.ToSlash(file))
	}
	rel = path.Clean(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return ""
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	link := prefix + "/" + strings.Join(parts, "/")
	if line > 0 {
		link += "#L" + strconv.Itoa(line)
	}
	return link
}

// code renders text as inline code, linked to line of file when there is a link.
func (l *SourceLinks) code(text, file string, line int, base bool) string {
	c := code(text)
	if u := l.URL(file, line, base); u != "" {
		return "[" + c + "](" + u + ")"
	}
	return c
}

// text renders plain text, linked to line of file at the head commit when there is a link.
func (l *SourceLinks) text(s, file string, line int) string {
	if u := l.URL(file, line, false); u != "" {
		return "[" + s + "](" + u + ")"
	}
	return s
}

// refs names resources in Markdown: inline code, with the root in front when several roots are
// shown (multi), linked to the line that declares the resource when links are known.
type refs struct {
	multi bool
	links *SourceLinks
}

// resource names an estimate of the head.
func (r refs) resource(e *estimator.Estimate) string {
	return r.links.code(label(r.multi, e.Root, e.Address), e.Source.File, e.Source.Line, false)
}

// change names a resource of a diff: where the head declares it, or, removed, where the base did.
func (r refs) change(c result.Change) string {
	name := label(r.multi, c.Root, c.Address)
	switch {
	case c.After != nil:
		return r.links.code(name, c.After.Source.File, c.After.Source.Line, false)
	case c.Before != nil:
		return r.links.code(name, c.Before.Source.File, c.Before.Source.Line, true)
	}
	return code(name)
}

// finding names the resource of a finding, linked to the line the finding points at.
func (r refs) finding(f result.Finding) string {
	return r.links.code(findingLabel(r.multi, f), f.File, f.Line, false)
}
