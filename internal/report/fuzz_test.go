package report

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/gpuguard/gpuguard/internal/result"
)

// FuzzCommentFromJSON reads a report as comment github --input does and renders the comment,
// with and without links to its files: never a panic, never over GitHub's limit, always the
// marker.
func FuzzCommentFromJSON(f *testing.F) {
	for _, name := range []string{"increase.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "diff", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version":"1","changes":[{"address":"a","change":"added"}],"findings":[{"rule":"X","severity":"deny","message":"m"}]}`))
	f.Add([]byte(`{"version":"1","resources":[{"address":"a","monthly_cost":1.5,"fit":{"verdict":"fits"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := result.ReadDocument(data)
		if err != nil {
			return
		}
		// With and without links to the files the document names (any path it holds).
		links := NewSourceLinks("https://github.com", "acme/infra", "0123456789abcdef0123456789abcdef01234567", "89abcdef", "/repo", "/repo/stacks")
		for _, l := range []*SourceLinks{nil, links} {
			var c string
			if doc.Diff != nil {
				c = DiffComment(doc.Diff, 0, l)
			} else {
				c = CheckComment(doc.Check, 0, l)
			}
			if utf8.RuneCountInString(c) > MaxCommentChars || len(c) < len(CommentMarker) || c[:len(CommentMarker)] != CommentMarker {
				t.Fatalf("comment of %d characters, starting %q", utf8.RuneCountInString(c), c[:min(len(c), 40)])
			}
		}
	})
}
