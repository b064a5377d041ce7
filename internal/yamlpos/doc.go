// Package yamlpos finds lines in YAML documents: where keys sit, so that an error or a finding
// about a setting ("budgets.monthly_increase", "training.micro_batch_size") can name its line,
// and where a syntax error really is, since yaml.v3 names the start of the enclosing block. Value
// finds a key's node in a mapping, for the packages that work on YAML nodes.
package yamlpos
