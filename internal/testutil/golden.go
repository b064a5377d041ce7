package testutil

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing with them")

// Updating reports whether the test run rewrites golden files.
func Updating() bool { return *update }

// Golden compares got with the golden file at path, or rewrites the file under -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run the test with -update to create it)", path, err)
	}
	if string(want) != string(got) {
		t.Errorf("output differs from %s (-want +got); if the change is intended, run with -update and review the diff:\n%s",
			path, cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")))
	}
}

// Excerpt compares got with the text of the document at path between the first start marker
// and the end marker after it (an example in the README or the docs), or rewrites that text under
// -update. The document is reviewed like a golden file.
func Excerpt(t testing.TB, path, start, end, got string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, start)
	if i < 0 {
		t.Fatalf("%s lacks %q", path, start)
	}
	from := i + len(start)
	j := strings.Index(doc[from:], end)
	if j < 0 {
		t.Fatalf("%s lacks %q after %q", path, end, start)
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:from]+got+doc[from+j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := doc[from : from+j]; want != got {
		t.Errorf("the example in %s is stale (-want +got); if the change is intended, run with -update and review the diff:\n%s",
			path, cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n")))
	}
}
