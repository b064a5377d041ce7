package terraform

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/parser"
)

// MaxFileSize is the largest configuration file read; larger files are skipped with a warning.
const MaxFileSize = 8 << 20

// sourceFile is one parsed configuration file with its bytes, kept for comments and snippets.
// Once parsed it is never modified, so a Cache can share it between goroutines.
type sourceFile struct {
	name  string
	src   []byte
	file  *hcl.File
	diags []parser.Error // read problems and syntax errors, reported by each loader that uses the file
	warns []parser.Error
	lines []int // byte offset of the start of each line
}

// Cache holds parsed files for a whole run, so that a module read during discovery, or called
// by many root modules, is parsed once. It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	files map[string]*cacheEntry
	dirs  map[string]*dirEntry
	// readable are the resolved FileDirs of the run, by their list: resolving them (one lstat
	// per path component) for each of a thousand root modules was a measurable cost.
	readable map[string]confine.Dirs
	memo     map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
}

// Memo returns what compute returns for key, computing it once per run: a wrapper's files that
// many roots read (a Terragrunt root configuration every unit includes) are parsed once. What
// compute returns is shared between goroutines and must not be changed. A nil cache computes
// every time.
func (c *Cache) Memo(key string, compute func() any) any {
	if c == nil {
		return compute()
	}
	c.mu.Lock()
	if c.memo == nil {
		c.memo = map[string]*memoEntry{}
	}
	e, ok := c.memo[key]
	if !ok {
		e = &memoEntry{}
		c.memo[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v = compute() })
	return e.v
}

// readableDirs resolves a run's FileDirs once.
func (c *Cache) readableDirs(dirs []string) confine.Dirs {
	if c == nil {
		return confine.NewDirs(dirs...)
	}
	key := strings.Join(dirs, "\x00")
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.readable[key]; ok {
		return d
	}
	if c.readable == nil {
		c.readable = map[string]confine.Dirs{}
	}
	d := confine.NewDirs(dirs...)
	c.readable[key] = d
	return d
}

type cacheEntry struct {
	once sync.Once
	sf   *sourceFile
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{files: map[string]*cacheEntry{}, dirs: map[string]*dirEntry{}} }

type dirEntry struct {
	once    sync.Once
	files   []string
	outside []string
	err     error
}

// moduleFiles lists a module directory's configuration files once per run, and the links
// among them that lead outside links' directories (not read). One scan uses one set of
// directories, so the listing can be shared.
func (c *Cache) moduleFiles(dir string, links confine.Dirs) ([]string, []string, error) {
	if c == nil {
		return moduleFiles(dir, links)
	}
	c.mu.Lock()
	e, ok := c.dirs[dir]
	if !ok {
		e = &dirEntry{}
		c.dirs[dir] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.files, e.outside, e.err = moduleFiles(dir, links) })
	return e.files, e.outside, e.err
}

func (c *Cache) get(name string, parse func() *sourceFile) *sourceFile {
	if c == nil {
		return parse()
	}
	c.mu.Lock()
	e, ok := c.files[name]
	if !ok {
		e = &cacheEntry{}
		c.files[name] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.sf = parse() })
	return e.sf
}

// loader reads a module tree for one evaluation. It is not safe for concurrent use: give each
// goroutine its own, sharing a Cache.
type loader struct {
	cache *Cache
	// generated are configuration files that exist only in memory (Options.Generated), by name.
	generated map[string][]byte
	seen      map[string]bool // files whose problems this loader already reported
	modules   map[string]*moduleConfig
	// errs and warns collect problems by file; one bad file never stops the others.
	errs  []parser.Error
	warns []parser.Error
}

func newLoader(cache *Cache) *loader {
	return &loader{cache: cache, seen: map[string]bool{}, modules: map[string]*moduleConfig{}}
}

// parseFile parses a .tf or .tf.json file (or bytes handed in for stdin). It returns nil when
// the file could not be read or parsed; its problems are recorded once per loader.
func (l *loader) parseFile(name string, src []byte, shared bool) *sourceFile {
	var sf *sourceFile
	switch {
	case src != nil:
		sf = parseSource(name, src)
	case isStandIn(name):
		// gpuguard's own files, the same for every root: parsed once per run.
		sf = l.cache.get(name, func() *sourceFile { return parseSource(name, standInSource(name)) })
	case shared:
		sf = l.cache.get(name, func() *sourceFile { return readAndParse(name) })
	default:
		sf = readAndParse(name)
	}
	if !l.seen[name] {
		l.seen[name] = true
		l.errs = append(l.errs, sf.diags...)
		l.warns = append(l.warns, sf.warns...)
	}
	if sf.file == nil {
		return nil
	}
	return sf
}

func readAndParse(name string) *sourceFile {
	f, err := os.Open(name)
	if err != nil {
		return &sourceFile{name: name, diags: []parser.Error{{File: name, Message: fmt.Sprintf("cannot read file: %v", unwrapPathError(err))}}}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return &sourceFile{name: name, diags: []parser.Error{{File: name, Message: fmt.Sprintf("cannot read file: %v", unwrapPathError(err))}}}
	}
	if info.Size() > MaxFileSize {
		return &sourceFile{name: name, warns: []parser.Error{{File: name, Message: fmt.Sprintf("skipped: file is %d bytes, over the %d-byte limit", info.Size(), MaxFileSize)}}}
	}
	src := make([]byte, 0, info.Size()+1)
	src, err = readAll(f, src)
	if err != nil {
		return &sourceFile{name: name, diags: []parser.Error{{File: name, Message: fmt.Sprintf("cannot read file: %v", unwrapPathError(err))}}}
	}
	return parseSource(name, src)
}

// readAll reads to EOF into buf (sized from Stat, so usually one read).
func readAll(f *os.File, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if err == io.EOF {
				return buf, nil
			}
			return buf, err
		}
		if len(buf) > MaxFileSize {
			return buf, fmt.Errorf("file grew over the %d-byte limit while being read", MaxFileSize)
		}
	}
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func parseSource(name string, src []byte) *sourceFile {
	sf := &sourceFile{name: name}
	if len(src) > MaxFileSize {
		sf.warns = append(sf.warns, parser.Error{File: name, Message: fmt.Sprintf("skipped: input is %d bytes, over the %d-byte limit", len(src), MaxFileSize)})
		return sf
	}
	if e := parser.CheckText(name, src, "a Terraform file"); e != nil {
		sf.diags = append(sf.diags, *e)
		return sf
	}
	sf.src = src
	var file *hcl.File
	var diags hcl.Diagnostics
	if strings.HasSuffix(name, ".json") {
		file, diags = hcljson.Parse(src, name)
	} else {
		file, diags = hclsyntax.ParseConfig(src, name, hcl.Pos{Line: 1, Column: 1})
	}
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			sf.diags = append(sf.diags, diagError(d))
		} else {
			sf.warns = append(sf.warns, diagError(d))
		}
	}
	if diags.HasErrors() {
		// A file with syntax errors is reported and left out: evaluating half a file would
		// price a configuration Terraform itself refuses.
		return sf
	}
	sf.file = file
	sf.lineIndex()
	return sf
}

func (sf *sourceFile) lineIndex() {
	sf.lines = []int{0}
	for i, b := range sf.src {
		if b == '\n' {
			sf.lines = append(sf.lines, i+1)
		}
	}
}

// addDiags turns HCL diagnostics into errors (and warnings) with file and line.
func (l *loader) addDiags(diags hcl.Diagnostics) {
	for _, d := range diags {
		e := diagError(d)
		if d.Severity == hcl.DiagError {
			l.errs = append(l.errs, e)
		} else {
			l.warns = append(l.warns, e)
		}
	}
}

func diagError(d *hcl.Diagnostic) parser.Error {
	e := parser.Error{Message: d.Summary}
	if d.Detail != "" {
		e.Message += ": " + d.Detail
	}
	if d.Subject != nil {
		e.File = d.Subject.Filename
		e.Line = d.Subject.Start.Line
	}
	return e
}

// lineText returns the text of a 1-based line of the file.
func (sf *sourceFile) lineText(n int) (string, bool) {
	if n < 1 || n > len(sf.lines) {
		return "", false
	}
	start := sf.lines[n-1]
	end := len(sf.src)
	if n < len(sf.lines) {
		end = sf.lines[n] - 1
	}
	return strings.TrimRight(string(sf.src[start:end]), "\r"), true
}

// suppressionsAbove reads gpuguard:ignore comments on the comment lines directly above line n.
func (sf *sourceFile) suppressionsAbove(n int) []parser.Suppression {
	return parser.SuppressionsAbove(sf.lineText, sf.name, n)
}

// moduleFiles lists the configuration files of a directory (IsModuleFile; a .tofu file replaces
// the .tf of its name, PreferTofu), sorted, skipping override files
// the way Terraform merges them last (they are read as ordinary files here, with a note). A
// file may be a symbolic link to a file inside links (shared providers.tf, versions.tf); a link
// leading elsewhere is listed in outside and not read.
func moduleFiles(dir string, links confine.Dirs) (files, outside []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		n := e.Name()
		if strings.HasPrefix(n, ".") || strings.HasPrefix(n, "#") || strings.HasSuffix(n, "~") {
			continue
		}
		if !IsModuleFile(n) {
			continue
		}
		p := filepath.Join(dir, n)
		switch links.Entry(p, e.Type()) {
		case confine.Outside:
			outside = append(outside, p)
			continue
		case confine.Skip:
			continue
		}
		files = append(files, p)
	}
	sort.Strings(files)
	return PreferTofu(files), outside, nil
}
