// Package gitref materialises a git ref (a branch, tag or commit) as a directory tree, so that
// gpuguard diff can check the base of a pull request without touching the working tree. The
// tree is extracted from `git archive` into a temporary directory that the caller removes.
package gitref
