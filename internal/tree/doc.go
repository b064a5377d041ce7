// Package tree owns operations on the generic trees decoded YAML and JSON become
// (map[string]any, []any and scalars) that more than one reader needs: copying one so that a
// change to the copy leaves the original alone (Helm values, Crossplane composition bases).
package tree
