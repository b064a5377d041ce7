// Package yamlpos finds where keys sit in a YAML document, so that an error or a finding about
// a setting ("budgets.monthly_increase", "training.micro_batch_size") can name its line.
package yamlpos
