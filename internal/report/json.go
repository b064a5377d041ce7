package report

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"sync"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/result"
)

// WriteCheckJSON writes a check document exactly as WriteJSON would, but encodes the resources
// concurrently: on a large scan, JSON encoding was the largest serial step after parsing.
func WriteCheckJSON(w io.Writer, c *result.Check) error {
	if len(c.Resources) < 256 {
		return WriteJSON(w, c)
	}
	parts := make([][]byte, len(c.Resources))
	errs := make([]error, len(c.Resources))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("    ", "  ")
			for i := k; i < len(c.Resources); i += workers {
				buf.Reset()
				errs[i] = enc.Encode(&c.Resources[i])
				parts[i] = append([]byte(nil), bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
			}
		}(k)
	}
	shallow := *c
	shallow.Resources = []estimator.Estimate{}
	var head bytes.Buffer
	if err := WriteJSON(&head, &shallow); err != nil {
		return err
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	marker := []byte(`"resources": [],`)
	i := bytes.Index(head.Bytes(), marker)
	if i < 0 {
		return WriteJSON(w, c)
	}
	ew := &errWriter{w: w}
	ew.Write(head.Bytes()[:i])
	ew.Write([]byte("\"resources\": [\n"))
	for j, p := range parts {
		ew.Write([]byte("    "))
		ew.Write(p)
		if j < len(parts)-1 {
			ew.Write([]byte(",\n"))
		} else {
			ew.Write([]byte("\n  ],"))
		}
	}
	ew.Write(head.Bytes()[i+len(marker):])
	return ew.err
}
