package main

import (
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// The binary carries its own tz database: the Action's image (alpine, no tzdata package) has
// none, and a schedule in Europe/Berlin would otherwise not be replayed there. This machine has
// one, so a test of time.LoadLocation would pass without it: the import is what is checked.
func TestBinaryEmbedsTheTimeZoneDatabase(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "time/tzdata" {
			return
		}
	}
	t.Error(`main.go does not import "time/tzdata"`)
}
