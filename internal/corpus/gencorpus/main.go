// Command gencorpus writes a generated input corpus for scripts/bench-corpus.sh.
//
//	go run ./internal/corpus/gencorpus -terraform 1000 -out /tmp/corpus
//	go run ./internal/corpus/gencorpus -terraform 1000 -profiles -out /tmp/corpus
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
	withProfiles := flag.Bool("profiles", false, "attach workload profiles to the Terraform stacks (a .gpuguard.yaml and profiles/)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gencorpus: -out is required")
		os.Exit(2)
	}
	if *tf > 0 {
		dir := filepath.Join(*out, "terraform")
		if err := corpus.WriteTerraform(dir, *tf); err != nil {
			fmt.Fprintln(os.Stderr, "gencorpus:", err)
			os.Exit(1)
		}
		if *withProfiles {
			if err := corpus.AttachProfiles(dir); err != nil {
				fmt.Fprintln(os.Stderr, "gencorpus:", err)
				os.Exit(1)
			}
		}
	}
}
