package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dirs are the directories files may be read under, each absolute with its symlinks resolved.
type Dirs struct {
	real  []string
	shown []string
}

// NewDirs confines reads to dirs (relative ones are taken from the working directory). A
// directory that does not exist is left out.
func NewDirs(dirs ...string) Dirs {
	var d Dirs
	seen := map[string]bool{}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		d.real = append(d.real, real)
		d.shown = append(d.shown, dir)
	}
	// A directory inside another adds nothing: leave it out of the list errors show.
	var real, shown []string
	for i, r := range d.real {
		if !d.under(r, i) {
			real, shown = append(real, r), append(shown, d.shown[i])
		}
	}
	d.real, d.shown = real, shown
	return d
}

// With returns the directories plus dirs, resolving only the added ones (NewDirs resolves
// every directory: a scan of a thousand root modules shares one base).
func (d Dirs) With(dirs ...string) Dirs {
	more := NewDirs(dirs...)
	out := Dirs{real: append(append([]string(nil), d.real...), more.real...), shown: append(append([]string(nil), d.shown...), more.shown...)}
	var real, shown []string
	seen := map[string]bool{}
	for i, r := range out.real {
		if !seen[r] && !out.under(r, i) {
			seen[r] = true
			real, shown = append(real, r), append(shown, out.shown[i])
		}
	}
	out.real, out.shown = real, shown
	return out
}

// under reports whether path lies in one of the directories (other than the one at skip).
func (d Dirs) under(path string, skip int) bool {
	for i, dir := range d.real {
		if i != skip && (path == dir || strings.HasPrefix(path, dir+string(filepath.Separator)) || dir == string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// OutsideError is a path whose real location is outside the allowed directories.
type OutsideError struct {
	Path string
	// Link is where a symbolic link on the way led, when one did.
	Link string
	Dirs []string
}

func (e *OutsideError) Error() string {
	if e.Link != "" {
		return fmt.Sprintf("%q is a link to %q, outside the checked directories (%s), and is not read", e.Path, e.Link, strings.Join(e.Dirs, ", "))
	}
	return fmt.Sprintf("%q is outside the checked directories (%s) and is not read", e.Path, strings.Join(e.Dirs, ", "))
}

// Resolve returns the real path of path (absolute, symlinks resolved) when it lies inside one of
// the directories. A path that does not exist is an error wrapping fs.ErrNotExist; one that
// resolves outside is an *OutsideError. Nothing outside is opened: only its name is resolved.
func (d Dirs) Resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%q does not exist: %w", path, fs.ErrNotExist)
		}
		return "", fmt.Errorf("cannot resolve %q: %w", path, err)
	}
	if d.under(real, -1) {
		return real, nil
	}
	e := &OutsideError{Path: path, Dirs: d.shown}
	if lexical, err := filepath.EvalSymlinks(filepath.Dir(abs)); err != nil || filepath.Join(lexical, filepath.Base(abs)) != real {
		e.Link = real
	}
	return "", e
}

// ReadFile reads a regular file inside the directories, at most limit bytes.
func (d Dirs) ReadFile(path string, limit int64) ([]byte, error) {
	real, err := d.Resolve(path)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("cannot read %q: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%q is not a regular file", path)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%q is larger than %d bytes", path, limit)
	}
	b, err := os.ReadFile(real)
	if err != nil {
		return nil, fmt.Errorf("cannot read %q: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%q is larger than %d bytes", path, limit)
	}
	return b, nil
}

// Verdict says whether a directory entry is read as a file.
type Verdict int

// Verdicts of Entry.
const (
	Read    Verdict = iota // a regular file, or a link to one inside the directories
	Skip                   // not a file: a directory, a link to one, a broken link, a device
	Outside                // a link whose target lies outside the directories: not read
)

// Entry decides whether the directory entry at path, of type mode (fs.DirEntry.Type), is read:
// a regular file is; a symbolic link is when its target, resolved, is a regular file inside the
// directories (a shared providers.tf linked into each stack). A link to a directory is skipped
// wherever it leads (nothing follows directory links). Discovery and module listings use
// it alike, so a link in a pull request cannot reach the runner's files.
func (d Dirs) Entry(path string, mode fs.FileMode) Verdict {
	if mode.IsRegular() {
		return Read
	}
	if mode&fs.ModeSymlink == 0 {
		return Skip
	}
	real, err := d.Resolve(path)
	var out *OutsideError
	if errors.As(err, &out) {
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			return Skip // links to directories are never walked, wherever they lead
		}
		return Outside
	}
	if err != nil {
		return Skip
	}
	if info, err := os.Stat(real); err != nil || !info.Mode().IsRegular() {
		return Skip
	}
	return Read
}
