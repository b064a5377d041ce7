// Command fakegithub runs the fake GitHub API on loopback for scripts/action-smoke.sh. It prints
// its URL on the first line of stdout, serves until killed, and on SIGTERM writes the comments of
// every issue as JSON to the file named by -dump.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gpuguard/gpuguard/internal/github/githubtest"
)

func main() {
	dump := flag.String("dump", "", "file to write the comments to on exit")
	issue := flag.Int("issue", 1, "pull request number whose comments are dumped")
	seed := flag.String("seed", "", "a comment body to seed the pull request with")
	fail := flag.Int("fail", 0, "answer every request with this HTTP status (403: a fork's read-only token)")
	flag.Parse()
	s := githubtest.New()
	if *seed != "" {
		s.Seed(*issue, *seed)
	}
	if *fail != 0 {
		s.Fail(githubtest.Failure{Status: *fail, Times: 1 << 30})
	}
	fmt.Println(s.APIURL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	if *dump != "" {
		b, _ := json.MarshalIndent(map[string]any{"comments": s.Comments(*issue), "requests": s.Requests}, "", "  ")
		_ = os.WriteFile(*dump, b, 0o644)
	}
	s.Close()
}
