package pricefeed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// Options configure a fetch.
type Options struct {
	// Regions limits the rows to these regions (required by the AWS and Azure fetches, which
	// ask per region; optional for GCP, whose catalog is global).
	Regions []string
	// Date is the fetch date written on every row (YYYY-MM-DD).
	Date string
	// BaseURL replaces the provider's endpoint (tests, mirrors).
	BaseURL string
	// APIKey is GCP's API key.
	APIKey string
	// HTTPClient is used as is when set.
	HTTPClient *http.Client
	// Progress, when set, is told how far a download or a listing has got.
	Progress func(Progress)
	// Sleep waits between retries; nil means time.Sleep.
	Sleep func(time.Duration)
}

// Progress reports a download's or a listing's advance.
type Progress struct {
	What  string // "us-east-1 offer file", "page 3"
	Done  int64  // bytes read, or items
	Total int64  // bytes expected; 0 when unknown
	Rows  int    // price rows kept so far
}

// Result is what a fetch or a parse yields.
type Result struct {
	Rows []catalog.Price
	// Skipped counts the price records left out, by reason ("Windows", "not a GPU type"...).
	Skipped map[string]int
	// Notes are things the user should know (types the composer could not price...).
	Notes []string
}

func (r *Result) skip(reason string) {
	if r.Skipped == nil {
		r.Skipped = map[string]int{}
	}
	r.Skipped[reason]++
}

// add keeps one row per type, region and option: the one with the newest effective date, ties
// broken by the lower price (a provider lists the same offer under several meters).
type rowSet struct {
	rows map[string]rowWithDate
}

type rowWithDate struct {
	p         catalog.Price
	effective string
}

func (s *rowSet) add(p catalog.Price, effective string) {
	if s.rows == nil {
		s.rows = map[string]rowWithDate{}
	}
	k := p.Provider + "\x00" + strings.ToLower(p.Type) + "\x00" + p.Region + "\x00" + string(p.Option)
	old, ok := s.rows[k]
	if !ok || effective > old.effective || effective == old.effective && p.Hourly < old.p.Hourly {
		s.rows[k] = rowWithDate{p, effective}
	}
}

func (s *rowSet) sorted() []catalog.Price {
	out := make([]catalog.Price, 0, len(s.rows))
	for _, r := range s.rows {
		out = append(out, r.p)
	}
	catalog.SortPrices(out)
	return out
}

// regionFilter reports whether a region was asked for (all when none were).
func regionFilter(regions []string) func(string) bool {
	if len(regions) == 0 {
		return func(string) bool { return true }
	}
	want := map[string]bool{}
	for _, r := range regions {
		want[parser.NormalizeRegion(r)] = true
	}
	return func(r string) bool { return want[parser.NormalizeRegion(r)] }
}

// decimalPrice parses a decimal price string exactly ("55.0400000000").
func decimalPrice(s string) (money.Micros, error) {
	return money.Parse(strings.TrimSpace(s))
}

// HoursPerYear is the hours a one-year term is spread over when a provider gives the term's
// total (Azure reservations, AWS upfront fees): 365 days of 24 hours.
const HoursPerYear = 8760

// httpError is a non-2xx answer.
type httpError struct {
	URL    string
	Status int
	Body   string
}

func (e *httpError) Error() string {
	msg := strings.TrimSpace(e.Body)
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return fmt.Sprintf("GET %s: HTTP %d: %s", e.URL, e.Status, msg)
}

// get fetches a URL, retrying 429 and 5xx answers and network errors with backoff. The caller
// closes the body. redact hides a secret (an API key) in errors.
func get(ctx context.Context, o Options, url, redact string) (*http.Response, error) {
	client := o.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Minute}
	}
	sleep := o.Sleep
	if sleep == nil {
		sleep = time.Sleep
	}
	shown := url
	if redact != "" {
		shown = strings.ReplaceAll(url, redact, "REDACTED")
	}
	delay := 2 * time.Second
	var last error
	for attempt := 1; attempt <= 5; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, fmt.Errorf("GET %s: %w", shown, err)
		}
		req.Header.Set("User-Agent", "gpuguard-pricing-update")
		resp, err := client.Do(req)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			last = fmt.Errorf("GET %s: %s", shown, strings.ReplaceAll(err.Error(), url, shown))
		case resp.StatusCode == http.StatusOK:
			return resp, nil
		default:
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			text := string(body)
			if redact != "" {
				text = strings.ReplaceAll(text, redact, "REDACTED")
			}
			last = &httpError{URL: shown, Status: resp.StatusCode, Body: text}
			if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
				return nil, last
			}
		}
		if attempt < 5 {
			sleep(delay)
			delay *= 2
		}
	}
	return nil, fmt.Errorf("after 5 attempts: %w", last)
}

// progressReader counts the bytes read through it.
type progressReader struct {
	r     io.Reader
	done  int64
	total int64
	what  string
	rows  func() int
	fn    func(Progress)
	last  time.Time
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	if p.fn != nil && (time.Since(p.last) > 200*time.Millisecond || errors.Is(err, io.EOF)) {
		p.last = time.Now()
		rows := 0
		if p.rows != nil {
			rows = p.rows()
		}
		p.fn(Progress{What: p.what, Done: p.done, Total: p.total, Rows: rows})
	}
	return n, err
}

// joinBasis joins the non-empty parts of a row's basis.
func joinBasis(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}
