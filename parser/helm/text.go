package helm

import (
	"bytes"
	"fmt"
	"text/template"
	"time"
)

// Text is a template renderer for strings outside charts (an Argo CD ApplicationSet's template
// fields with goTemplate): Go templates with the functions charts have, under the same limits
// on calls, output and time as a chart. One Text shares those limits across all it renders.
type Text struct {
	r          *renderer
	missingErr bool
	deadline   time.Time
}

// NewText returns a renderer; missingKeyError makes a reference to a missing map key an error
// (text/template's missingkey=error) instead of "<no value>".
func NewText(missingKeyError bool) *Text {
	return &Text{r: &renderer{}, missingErr: missingKeyError, deadline: time.Now().Add(Timeout)}
}

// Render renders text with data. A template that would run past the Text's time is stopped.
func (t *Text) Render(text string, data any) (string, error) {
	// Once the time is spent no rendering starts: one stopped may still be running.
	wait := time.Until(t.deadline)
	if wait <= 0 {
		return "", fmt.Errorf("templates took longer than %s in all and were stopped", Timeout)
	}
	missing := "missingkey=default"
	if t.missingErr {
		missing = "missingkey=error"
	}
	set := template.New("text").Option(missing)
	set.Funcs(t.r.funcs())
	if _, err := set.Parse(text); err != nil {
		return "", err
	}
	t.r.set = set
	return within(wait, fmt.Errorf("templates took longer than %s in all and were stopped", Timeout), func() (string, error) {
		var buf bytes.Buffer
		if err := set.Execute(&limited{w: &buf, r: t.r}, data); err != nil {
			return "", shortCallChain(err)
		}
		return buf.String(), nil
	})
}
