// Package costdiff compares two check documents, base and head: resources matched by root and
// address are added, removed, changed (instance type, quantity, purchase option or price) or
// unchanged, with monthly totals before and after. It computes; report renders.
package costdiff
