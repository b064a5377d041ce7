package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolveStaysInside(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	outside := filepath.Join(base, "secret")
	for _, d := range []string{filepath.Join(repo, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(outside, "ghp_token")
	write(filepath.Join(repo, "sub", "gpu.yaml"), "instance_type: g5.xlarge\n")
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
	}
	link(outside, "to-secret")                           // a file link leaving the tree
	link(base, "to-parent")                              // a directory link leaving the tree
	link(filepath.Join(repo, "sub", "gpu.yaml"), "same") // a link that stays inside
	link("/proc/self/environ", "environ")
	// The checked directory named through a symlink still contains its own files.
	if err := os.Symlink(repo, filepath.Join(base, "repo-link")); err != nil {
		t.Fatal(err)
	}
	d := NewDirs(filepath.Join(base, "repo-link"))

	for _, ok := range []string{"sub/gpu.yaml", "same", "sub/../sub/gpu.yaml"} {
		if _, err := d.ReadFile(filepath.Join(repo, ok), 1<<20); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"to-secret", "to-parent/secret", "../secret", "environ", "sub/../../secret"} {
		b, err := d.ReadFile(filepath.Join(repo, bad), 1<<20)
		var out *OutsideError
		if !errors.As(err, &out) || b != nil {
			t.Errorf("%s: read %q, err %v", bad, b, err)
		}
		if err != nil && strings.Contains(err.Error(), "ghp_") {
			t.Errorf("%s: the error shows the file's content: %v", bad, err)
		}
	}
	var out *OutsideError
	if _, err := d.Resolve(filepath.Join(repo, "to-secret")); !errors.As(err, &out) || out.Link != outside || !strings.Contains(err.Error(), "is a link to") {
		t.Errorf("a link out names its target: %v", err)
	}
	if _, err := d.Resolve(filepath.Join(repo, "..", "secret")); !errors.As(err, &out) || out.Link != "" {
		t.Errorf("a plain path out is no link: %v", err)
	}
	if _, err := d.ReadFile(filepath.Join(repo, "missing.yaml"), 1<<20); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := d.ReadFile(filepath.Join(repo, "sub"), 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	if _, err := d.ReadFile(filepath.Join(repo, "sub", "gpu.yaml"), 4); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("limit: %v", err)
	}
	if _, err := (Dirs{}).Resolve(filepath.Join(repo, "sub", "gpu.yaml")); err == nil {
		t.Error("no directories allowed a read")
	}
}

func TestEntry(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	if err := os.MkdirAll(filepath.Join(repo, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(repo, "a.tf"), filepath.Join(base, "out.tf")} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"in.tf": filepath.Join(repo, "a.tf"), "out.tf": filepath.Join(base, "out.tf"),
		"outdir": base, "indir": filepath.Join(repo, "dir"), "dangling.tf": filepath.Join(repo, "none.tf")}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Skipf("no symlinks: %v", err)
		}
	}
	d := NewDirs(repo)
	entries, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Verdict{}
	for _, e := range entries {
		got[e.Name()] = d.Entry(filepath.Join(repo, e.Name()), e.Type())
	}
	want := map[string]Verdict{"a.tf": Read, "in.tf": Read, "out.tf": Outside, "outdir": Skip, "indir": Skip, "dangling.tf": Skip, "dir": Skip}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: %d, want %d", name, got[name], v)
		}
	}
}

func TestWithAddsDirectories(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, d := range []string{filepath.Join(a, "sub"), b} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(a, "sub", "x"), filepath.Join(b, "y")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := NewDirs(filepath.Join(a, "sub"))
	if _, err := d.Resolve(filepath.Join(b, "y")); err == nil {
		t.Fatal("b is readable before it is added")
	}
	w := d.With(b, a) // a contains a/sub: a/sub drops out of the list
	if _, err := w.Resolve(filepath.Join(b, "y")); err != nil {
		t.Errorf("b added: %v", err)
	}
	if len(w.shown) != 2 || w.shown[0] != b || w.shown[1] != a {
		t.Errorf("dirs %q", w.shown)
	}
	if _, err := d.Resolve(filepath.Join(b, "y")); err == nil {
		t.Error("With changed the directories it was called on")
	}
}
