package gitref

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

func TestMaterialize(t *testing.T) {
	repo := t.TempDir()
	testutil.Git(t, repo, "init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(repo, "infra"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "infra", "main.tf"), []byte("# base\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testutil.Git(t, repo, "add", ".")
	testutil.Git(t, repo, "commit", "-q", "-m", "base")
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
	if _, err := Materialize(context.Background(), repo, "no-such-branch"); err == nil || !strings.Contains(err.Error(), "neither a directory nor a commit") || strings.Contains(err.Error(), "shallow") {
		t.Fatalf("err = %v", err)
	}
	// In a shallow clone (a CI checkout's default), a ref not found may be one not fetched: the
	// error says how to fetch it.
	testutil.Git(t, repo, "commit", "-q", "-am", "head")
	shallow := filepath.Join(t.TempDir(), "clone")
	testutil.Git(t, repo, "clone", "-q", "--depth", "1", "file://"+repo, shallow)
	_, err = Materialize(context.Background(), shallow, "HEAD~1")
	if err == nil || !strings.Contains(err.Error(), "the clone is shallow, so the ref may not have been fetched (actions/checkout with fetch-depth: 0, or git fetch origin HEAD~1)") {
		t.Fatalf("shallow clone: err = %v", err)
	}
	if _, err := Materialize(context.Background(), t.TempDir(), "main"); err == nil {
		t.Fatal("a ref outside a repository was accepted")
	}
}
