// Package money holds amounts of US dollars as integer micro-dollars, so that sums over thousands
// of resources never drift the way float64 sums do. Rounding happens only when an amount is
// formatted for people or JSON.
package money
