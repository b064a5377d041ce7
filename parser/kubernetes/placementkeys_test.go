package kubernetes

import "testing"

// A placement annotation under a key its kind does not read places nothing: a warning names the
// key the kind reads. A key of a name no controller of the kind reads, and the keys it does
// read, are not warned of.
func TestMisnamedPlacementKeys(t *testing.T) {
	jobset := func(own, job string) string {
		return `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: js, namespace: ml, annotations: {` + own + `}}
spec:
  replicatedJobs:
    - name: w
      template:
        metadata: {annotations: {` + job + `}}
        spec:
          parallelism: 2
          template:
            spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}
`
	}
	lws := func(own string) string {
		return `apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: l, namespace: ml, annotations: {` + own + `}}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}
`
	}
	job := func(podAnn string) string {
		return `apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml}
spec:
  template:
    metadata: {annotations: {` + podAnn + `}}
    spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}
`
	}
	for _, c := range []struct {
		name, src, want string
	}{
		{"a JobSet's key without alpha", jobset("jobset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname", ""),
			"JobSet/ml/js sets jobset.sigs.k8s.io/exclusive-topology, where JobSet reads alpha.jobset.sigs.k8s.io/exclusive-topology: a key nothing reads places nothing (priced without it)"},
		{"on the replicated job", jobset("", "jobset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname"),
			"JobSet/ml/js sets jobset.sigs.k8s.io/exclusive-topology, where JobSet reads alpha.jobset.sigs.k8s.io/exclusive-topology:"},
		{"a LeaderWorkerSet's key on a JobSet", jobset(lwsExclusiveKey+": kubernetes.io/hostname", ""),
			"sets leaderworkerset.sigs.k8s.io/exclusive-topology, where JobSet reads alpha.jobset.sigs.k8s.io/exclusive-topology:"},
		{"the JobSet's own", jobset(jobSetExclusiveKey+": kubernetes.io/hostname", jobSetNodeSelectorKey+": \"true\""), ""},
		{"the API group's domain", lws("leaderworkerset.x-k8s.io/exclusive-topology: kubernetes.io/hostname, leaderworkerset.x-k8s.io/subgroup-exclusive-topology: rack"),
			"LeaderWorkerSet/ml/l sets leaderworkerset.x-k8s.io/exclusive-topology, where LeaderWorkerSet reads leaderworkerset.sigs.k8s.io/exclusive-topology; leaderworkerset.x-k8s.io/subgroup-exclusive-topology, where LeaderWorkerSet reads leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology:"},
		{"the LeaderWorkerSet's own", lws(lwsExclusiveKey + ": kubernetes.io/hostname"), ""},
		{"Kueue's under another domain", job("kueue.sigs.k8s.io/podset-required-topology: kubernetes.io/hostname"),
			"Job/ml/j sets kueue.sigs.k8s.io/podset-required-topology, where Kueue reads kueue.x-k8s.io/podset-required-topology:"},
		{"Kueue's own", job(tasRequiredKey + ": kubernetes.io/hostname"), ""},
		{"Kueue's slice layers under another domain", job(`kueue.sigs.k8s.io/podset-slice-required-topology-constraints: '[{"topology": "kubernetes.io/hostname", "size": 1}]'`),
			"Job/ml/j sets kueue.sigs.k8s.io/podset-slice-required-topology-constraints, where Kueue reads kueue.x-k8s.io/podset-slice-required-topology-constraints:"},
		{"a RoleBasedGroup's under another domain", `apiVersion: workloads.x-k8s.io/v1alpha1
kind: RoleBasedGroup
metadata: {name: r, namespace: ml, annotations: {rbg.workloads.x-k8s.io/exclusive-topology: kubernetes.io/hostname}}
spec:
  roles:
    - name: w
      replicas: 1
      template:
        spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}
`, "RoleBasedGroup/ml/r sets rbg.workloads.x-k8s.io/exclusive-topology, where RoleBasedGroup reads rolebasedgroup.workloads.x-k8s.io/exclusive-topology:"},
		{"a key no Job reads", job("alpha.jobset.sigs.k8s.io/exclusive-topology: kubernetes.io/hostname, example.com/node-selector: a"), ""},
	} {
		buildWarning(t, c.name, c.src, c.want)
	}
}
