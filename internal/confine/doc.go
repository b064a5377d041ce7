// Package confine owns one security rule: a file named by the input under review — a Terraform
// file() call, a profile path in a tag, an annotation or .gpuguard.yaml, the config's price
// overlay or policy directories — is read only when its real path, symlinks resolved, lies inside
// the directories being checked. In a pull request that input is the author's: without the rule
// a symlink or a "../.." path would let it read any file on the runner (/proc/self/environ holds
// the token) and print it in the comment.
//
// It returns paths and errors; it never prints.
package confine
