// Package config loads .gpuguard.yaml (DESIGN.md, "Config file"): it finds the file upward from
// the first path checked, decodes it strictly (an unknown key is an error with its line), and
// works out the project root that profile and policy paths are relative to.
package config
