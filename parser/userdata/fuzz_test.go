package userdata

import (
	"testing"
)

// FuzzRead feeds Read arbitrary user data: it must not panic or hang, and what it reads must
// hold what the kubelet would: a known way of bootstrapping, taints with Kubernetes' effects,
// labels a node may set on itself.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		"#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=a=b --register-with-taints=k=v:NoSchedule'\n",
		"#!/bin/bash\nL=\"a=$(date)\"\nexport X=1\nsudo -E bash /etc/eks/bootstrap.sh \\\n ml --kubelet-extra-args \"--node-labels=$L,${X}=2\" <<EOF\nbody\nEOF\n",
		"#!/bin/sh\ncat <<-'E' >f\n\tx'\n\tE\n/etc/eks/bootstrap.sh `hostname` --kubelet-extra-args \"$((1+2))\" # c\n",
		al2023MIME,
		b64(al2023MIME),
		gzipB64("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: [{key: a, effect: NoExecute}]\n"),
		"[settings.kubernetes]\ncluster-name = \"ml\"\n[settings.kubernetes.node-taints]\na = [\"b:NoSchedule\"]\n[settings.kubernetes.node-labels]\nx = \"y\"\n",
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=a\n\n--a\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/x-shellscript\n\n/etc/eks/bootstrap.sh c\n--b--\n--a--\n",
		"#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=node-role.kubernetes.io/x=y'\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, userData string) {
		n, ok, err := Read(userData)
		if err != nil || !ok {
			return
		}
		switch n.Bootstrap {
		case BootstrapScript, Nodeadm, Bottlerocket:
		default:
			t.Fatalf("bootstrap %q", n.Bootstrap)
		}
		for _, taint := range n.Taints {
			if taint.Key == "" || taint.Effect != "NoSchedule" && taint.Effect != "PreferNoSchedule" && taint.Effect != "NoExecute" {
				t.Fatalf("taint %+v", taint)
			}
		}
		for k := range n.Labels {
			if n.Bootstrap != Bottlerocket && !selfLabelAllowed(k) {
				t.Fatalf("label %q a kubelet refuses", k)
			}
		}
	})
}
