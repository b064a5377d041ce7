// Command gencorpus writes a generated input corpus for scripts/bench-corpus.sh.
//
//	go run ./internal/corpus/gencorpus -terraform 1000 -kubernetes 3000 -out /tmp/corpus
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpuguard/gpuguard/internal/corpus"
)

func main() {
	tf := flag.Int("terraform", 1000, "Terraform stacks to write")
	out := flag.String("out", "", "output directory (required)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gencorpus: -out is required")
		os.Exit(2)
	}
	if *tf > 0 {
		if err := corpus.WriteTerraform(filepath.Join(*out, "terraform"), *tf); err != nil {
			fmt.Fprintln(os.Stderr, "gencorpus:", err)
			os.Exit(1)
		}
	}
}
