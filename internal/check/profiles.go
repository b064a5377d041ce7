package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/config"
	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/profiles"
)

// profileSet loads each attached profile file once per run, only from inside dirs: a profile
// path comes from the input under review (the config, a tag, an annotation).
type profileSet struct {
	root   string
	dirs   confine.Dirs
	loaded map[string]profileResult
}

type profileResult struct {
	p   *profiles.Profile
	err error
}

// attachment finds the profile a resource uses, in DESIGN.md's order: the config's profiles
// map (the most specific matching glob, returned too), then the Kubernetes annotation or
// Terraform tag/label.
func attachment(r parser.Resource, cfg *config.Config) (path, glob string) {
	if glob, path, ok := matchGlob(r.Root, r.Address, cfg.Profiles); ok {
		return path, glob
	}
	return r.Profile, ""
}

// attachedAt is where a resource's profile is attached, for an error about it: the config's
// line for the glob, else the resource (its annotation, tag or label). Only a failed load asks.
func attachedAt(r parser.Resource, cfg *config.Config, glob string) parser.Location {
	switch {
	case glob == "":
		return r.Source
	case cfg.Path == "":
		return parser.Location{}
	}
	return parser.Location{File: shownPath(cfg.Path), Line: max(cfg.Line("profiles."+glob), 1)}
}

// candidates are the files an attached path may name: the path under the project root, and for
// a bare name such as llama-7b-lora (a GCP label cannot hold "/" or ".") profiles/NAME.yaml and
// .yml there too.
func (s *profileSet) candidates(p string) []string {
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(s.root, filepath.FromSlash(p))
	}
	out := []string{full}
	if !strings.ContainsAny(p, "/.") {
		for _, ext := range []string{".yaml", ".yml"} {
			out = append(out, filepath.Join(s.root, "profiles", p+ext))
		}
	}
	return out
}

// resolve turns an attached path into a file under the project root: a bare name's file under
// profiles/ when there is one, else the path itself.
func (s *profileSet) resolve(p string) string {
	c := s.candidates(p)
	for _, cand := range c[1:] {
		if _, err := os.Stat(cand); err == nil {
			return cand
		}
	}
	return c[0]
}

func (s *profileSet) load(p string) (*profiles.Profile, error) {
	full := s.resolve(p)
	if r, ok := s.loaded[full]; ok {
		return r.p, r.err
	}
	var prof *profiles.Profile
	_, err := s.dirs.Resolve(full)
	var outside *confine.OutsideError
	if errors.As(err, &outside) {
		err = &profiles.Error{File: p, Msg: "cannot read profile: " + err.Error()}
	} else {
		prof, err = profiles.Load(full)
	}
	s.loaded[full] = profileResult{prof, err}
	return prof, err
}

// withPodAllocConf is the profile as the pod runs it: the PyTorch allocator settings its GPU
// container starts with (PYTORCH_ALLOC_CONF) replace the profile's runtime.pytorch_alloc_conf,
// since they are what the job gets, where they turn expandable segments on or off (the only
// setting the fragmentation margin reads). The shared profile is copied, not changed. Settings
// PyTorch refuses are a note and are not used. A measured profile's peak does not change with
// them: a note says it was captured under other settings.
func withPodAllocConf(prof *profiles.Profile, r parser.Resource, e *estimator.Estimate) *profiles.Profile {
	pod := r.Pod
	if pod == nil || pod.PyTorchAllocConfFrom == "" {
		return prof
	}
	declared := ""
	if prof.Runtime != nil {
		declared = prof.Runtime.PyTorchAllocConf
	}
	podRuntime := profiles.Runtime{PyTorchAllocConf: pod.PyTorchAllocConf}
	if podRuntime.ExpandableSegments() == prof.Runtime.ExpandableSegments() && profiles.AllocConfProblem(pod.PyTorchAllocConf) == "" {
		return prof // the same margin either way
	}
	if msg := profiles.AllocConfProblem(pod.PyTorchAllocConf); msg != "" {
		e.Notes = append(e.Notes, fmt.Sprintf("%s is %q, which PyTorch refuses when the job starts (%s); the memory estimate does not use it", pod.PyTorchAllocConfFrom, pod.PyTorchAllocConf, msg))
		return prof
	}
	rt := profiles.Runtime{}
	if prof.Runtime != nil {
		rt = *prof.Runtime
	}
	rt.PyTorchAllocConf = pod.PyTorchAllocConf
	cp := *prof
	cp.Runtime = &rt
	if prof.Measured != nil {
		// A measured peak is what the capture's allocator held: no margin to change, so say
		// the settings differ rather than claim the estimate follows them.
		e.Notes = append(e.Notes, fmt.Sprintf("%s is %q, %s, but the profile was captured with them %s (%s): its measured peak is used as it is, and may differ under this pod's settings (docs/memory-model.md, \"Expandable segments\")",
			pod.PyTorchAllocConfFrom, pod.PyTorchAllocConf, expandableState(podRuntime.ExpandableSegments(), "which turns expandable segments"),
			expandableState(prof.Runtime.ExpandableSegments(), ""), capturedConf(declared)))
		return &cp
	}
	note := fmt.Sprintf("the memory estimate uses %s, %q (PyTorch allocator settings)", pod.PyTorchAllocConfFrom, pod.PyTorchAllocConf)
	if declared != "" {
		note += fmt.Sprintf(", over the profile's runtime.pytorch_alloc_conf %q", declared)
	}
	e.Notes = append(e.Notes, note)
	return &cp
}

// expandableState is "on" or "off", after prefix when there is one.
func expandableState(on bool, prefix string) string {
	state := "off"
	if on {
		state = "on"
	}
	if prefix == "" {
		return state
	}
	return prefix + " " + state
}

// capturedConf says what allocator settings a measured profile records.
func capturedConf(conf string) string {
	if conf == "" {
		return "runtime.pytorch_alloc_conf is not set"
	}
	return fmt.Sprintf("runtime.pytorch_alloc_conf %q", conf)
}

// Thresholds reads the verdict thresholds from the config's policy data
// (oversized_memory_fraction, oversized_utilization_percent, tight_memory_fraction).
func Thresholds(cfg *config.Config) estimator.Thresholds {
	th := estimator.DefaultThresholds
	if v, ok := number(cfg.PolicyData["oversized_memory_fraction"]); ok && v > 0 && v < 1 {
		th.OversizedMemoryFraction = v
	}
	if v, ok := number(cfg.PolicyData["oversized_utilization_percent"]); ok && v > 0 && v < 100 {
		th.OversizedUtilization = v
	}
	if v, ok := number(cfg.PolicyData["tight_memory_fraction"]); ok && v > 0 && v <= 1 {
		th.Tight = v
	}
	return th
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// assess attaches profiles and fills fit and recommendations. A profile that cannot be read is
// an error on that resource, with the profile's path and line.
func assess(doc []estimator.Estimate, rs []parser.Resource, cfg *config.Config, pricer *estimator.Pricer, dirs confine.Dirs) []parser.Error {
	set := &profileSet{root: cfg.Root, dirs: dirs, loaded: map[string]profileResult{}}
	th := Thresholds(cfg)
	var errs []parser.Error
	type job struct {
		i    int
		prof *profiles.Profile
	}
	var jobs []job
	for i := range doc {
		e := &doc[i]
		path, glob := attachment(rs[i], cfg)
		if path == "" {
			// A vLLM or SGLang server's own arguments describe its model: the profile
			// inferred from them judges whether it fits (profiles.FromVLLM, FromSGLang).
			reason := "no workload profile attached"
			if s := rs[i].Pod; s != nil && s.Serving != nil {
				infer := profiles.FromVLLM
				if s.Serving.Engine == parser.EngineSGLang {
					infer = profiles.FromSGLang
				}
				prof, why := infer(s.Serving.Argv)
				if prof != nil {
					jobs = append(jobs, job{i, prof})
					continue
				}
				reason += fmt.Sprintf("; none could be inferred from the container's %s arguments: %s", s.Serving.Engine, why)
			}
			e.Fit = &estimator.Fit{Verdict: estimator.VerdictUnknown, Reason: reason}
			if e.MonthlyCost != nil {
				jobs = append(jobs, job{i, nil}) // commitments need no profile
			}
			continue
		}
		p := path
		e.Profile = &p
		prof, err := set.load(path)
		if err != nil {
			pErr := set.loadError(e.Address, path, attachedAt(rs[i], cfg, glob), err)
			errs = append(errs, pErr)
			e.Fit = &estimator.Fit{Verdict: estimator.VerdictUnknown, Reason: "the profile could not be read: " + pErr.Message}
			continue
		}
		jobs = append(jobs, job{i, withPodAllocConf(prof, rs[i], e)})
	}
	// Judging fit and searching the catalog for cheaper fits is most of a check's CPU after
	// parsing when profiles are attached (resources without one only price their commitments and, for pods kept one to a node, a smaller node); each resource is independent (the pricer and the
	// profiles are only read), so the work is spread over the cores in contiguous chunks.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(jobs)/64))
	chunk := (len(jobs) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(jobs); lo += chunk {
		wg.Add(1)
		go func(part []job) {
			defer wg.Done()
			for _, j := range part {
				if j.prof == nil {
					if recs := pricer.Unprofiled(&doc[j.i], rs[j.i]); len(recs) > 0 {
						doc[j.i].Recommendations = recs
					}
					continue
				}
				pricer.Assess(&doc[j.i], rs[j.i], j.prof, th)
			}
		}(jobs[lo:min(lo+chunk, len(jobs))])
	}
	wg.Wait()
	return dedupeErrors(errs)
}

// loadError is a profile that could not be loaded as an input error. A mistake in the profile is
// at its line in the file read; a missing file is where the profile is attached (a file of the
// change, which a review can annotate), saying every path it was looked for.
func (s *profileSet) loadError(addr, path string, at parser.Location, err error) parser.Error {
	var pe *profiles.Error
	if !errors.As(err, &pe) {
		return parser.Error{File: path, Message: fmt.Sprintf("%s: %v", addr, err)}
	}
	out := parser.Error{File: path, Line: pe.Line, Message: fmt.Sprintf("profile of %s: %s", addr, pe.Msg)}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if at.File != "" {
			out.File, out.Line = at.File, at.Line
			out.Message = fmt.Sprintf("profile %s of %s: %s", path, addr, pe.Msg)
		}
		c := s.candidates(path)
		looked := c[0]
		if len(c) > 1 {
			looked = strings.Join(c[:len(c)-1], ", ") + " and " + c[len(c)-1]
		}
		out.Message += fmt.Sprintf(" (looked for %s)", looked)
	case pe.Line > 0:
		out.File = shownPath(pe.File) // the file read, which a bare name does not say
	case pe.File != "" && pe.File != path:
		out.Message += fmt.Sprintf(" (read from %s)", pe.File)
	}
	return out
}

func dedupeErrors(errs []parser.Error) []parser.Error {
	seen := map[string]bool{}
	var out []parser.Error
	for _, e := range errs {
		k := fmt.Sprintf("%s:%d", e.File, e.Line)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}
