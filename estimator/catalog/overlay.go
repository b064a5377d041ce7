package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/parser"
)

// OverlayVersion is the version of the overlay file format.
const OverlayVersion = 1

// Overlay is a price overlay written by `gpuguard pricing update`: rows in the same shape as
// the embedded prices.csv, each with its source and fetch date.
type Overlay struct {
	Version     int          `json:"gpuguard_overlay"`
	GeneratedAt string       `json:"generated_at"`
	Provider    string       `json:"provider,omitempty"`
	Rows        []OverlayRow `json:"rows"`
}

// OverlayRow is one price row.
type OverlayRow struct {
	Provider       string `json:"provider"`
	InstanceType   string `json:"instance_type"`
	Region         string `json:"region"`
	PurchaseOption string `json:"purchase_option"`
	USDPerHour     string `json:"usd_per_hour"`
	Estimated      bool   `json:"estimated"`
	Date           string `json:"date"`
	Source         string `json:"source"`
	Basis          string `json:"basis,omitempty"`
}

// Row converts a price to an overlay row.
func Row(p Price) OverlayRow {
	return OverlayRow{Provider: p.Provider, InstanceType: p.Type, Region: p.Region, PurchaseOption: string(p.Option),
		USDPerHour: p.Hourly.Decimal(6), Estimated: p.Estimated, Date: p.Date, Source: p.Source, Basis: p.Basis}
}

// Price converts an overlay row to a price.
func (r OverlayRow) Price() (Price, error) {
	h, err := money.Parse(r.USDPerHour)
	if err != nil {
		return Price{}, fmt.Errorf("usd_per_hour: %w", err)
	}
	p := Price{Provider: r.Provider, Type: r.InstanceType, Region: parser.NormalizeRegion(r.Region), Option: parser.PurchaseOption(r.PurchaseOption),
		Hourly: h, Estimated: r.Estimated, Date: r.Date, Source: r.Source, Basis: r.Basis}
	return p, p.validate()
}

// ReadOverlayFile reads an overlay (JSON as written by pricing update, or CSV with the columns
// of prices.csv).
func ReadOverlayFile(path string) ([]Price, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("price overlay: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("price overlay %s: %w", path, err)
	}
	rows, err := ParseOverlay(data)
	if err != nil {
		return nil, fmt.Errorf("price overlay %s: %w", path, err)
	}
	return rows, nil
}

// ParseOverlay decodes overlay bytes.
func ParseOverlay(data []byte) ([]Price, error) {
	t := bytes.TrimSpace(data)
	if len(t) > 0 && t[0] == '{' {
		var o Overlay
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return nil, err
		}
		if o.Version != OverlayVersion {
			return nil, fmt.Errorf("unsupported overlay version %d", o.Version)
		}
		out := make([]Price, 0, len(o.Rows))
		for i, r := range o.Rows {
			p, err := r.Price()
			if err != nil {
				return nil, fmt.Errorf("row %d: %w", i+1, err)
			}
			out = append(out, p)
		}
		return out, nil
	}
	header, _, _ := strings.Cut(string(t), "\n")
	cols := map[string]bool{}
	for _, c := range strings.Split(header, ",") {
		cols[strings.TrimSpace(c)] = true
	}
	for _, c := range []string{"provider", "instance_type", "region", "purchase_option", "usd_per_hour", "source"} {
		if !cols[c] {
			return nil, fmt.Errorf("neither a JSON overlay nor a CSV with the columns of prices.csv (no %q column)", c)
		}
	}
	var out []Price
	err := readTable("overlay", strings.NewReader(string(t)), func(r record) error {
		p, err := priceFromRecord(r)
		out = append(out, p)
		return err
	})
	return out, err
}

// WriteOverlay writes an overlay as indented JSON.
func WriteOverlay(w io.Writer, o Overlay) error {
	o.Version = OverlayVersion
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(o)
}
