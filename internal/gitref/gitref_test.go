package gitref

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestMaterialize(t *testing.T) {
	repo := t.TempDir()
	run(t, repo, "init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(repo, "infra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "infra", "main.tf"), []byte("# base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "add", ".")
	run(t, repo, "commit", "-q", "-m", "base")
	if err := os.WriteFile(filepath.Join(repo, "infra", "main.tf"), []byte("# head\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := Materialize(context.Background(), filepath.Join(repo, "infra"), "main")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(tree.Dir, "main.tf"))
	if err != nil || string(b) != "# base\n" {
		t.Fatalf("base file = %q, %v (dir %s)", b, err, tree.Dir)
	}
	if err := tree.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tree.Root); !os.IsNotExist(err) {
		t.Fatalf("tree not removed: %v", err)
	}
	if _, err := Materialize(context.Background(), repo, "no-such-branch"); err == nil || !strings.Contains(err.Error(), "neither a directory nor a commit") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Materialize(context.Background(), t.TempDir(), "main"); err == nil {
		t.Fatal("a ref outside a repository was accepted")
	}
}
