package userdata

import (
	"strings"
	"testing"
)

// FuzzRead feeds Read arbitrary user data, and ReadAll the same split at its first NUL into user
// data and a startup script: neither may panic or hang, and what they read must hold what the
// kubelet would: a known way of bootstrapping, taints with Kubernetes' effects, labels a node
// may set on itself.
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
		"#!/bin/bash\nP=l4\ncat > /etc/rancher/k3s/config.yaml <<EOF\nnode-label: [\"p=$P\", \"z=$(date)\"]\nnode-taint+: a=b:NoSchedule\nEOF\ncurl -sfL https://get.k3s.io | K3S_URL=https://s:6443 INSTALL_K3S_EXEC='agent --node-label x=y' sh -s - --node-taint=c=d:NoExecute 2>&1 >/dev/null\n",
		"#cloud-config\nwrite_files:\n  - path: /etc/rancher/rke2/config.yaml.d/10.yaml\n    encoding: b64\n    content: bm9kZS1sYWJlbDogW2E9Yl0K\n    append: true\nruncmd:\n  - [systemctl, enable, --now, rke2-agent]\n  - echo 'KUBELET_EXTRA_ARGS=--node-labels=q=r' | tee -a /etc/default/kubelet\n",
		"#!/bin/bash\ncat <<'E' | sudo tee /j.yaml\napiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\ncontrolPlane: {}\nnodeRegistration:\n  kubeletExtraArgs: [{name: node-labels, value: a=b}]\nE\nkubeadm join --config /j.yaml\n",
		"#!/bin/bash\necho 'kubelet-arg: [\"node-labels=a=b\", max-pods=9]' > /etc/rancher/k3s/config.yaml\nk3s agent --kubelet-arg=--register-with-taints+=k=v:NoSchedule --kubelet-arg node-labels-=\"c=$(date)\"\n",
	} {
		f.Add(seed)
	}
	f.Add("#cloud-config\nwrite_files:\n  - path: /etc/rancher/k3s/config.yaml\n    content: 'node-label: [a=b]'\n\x00k3s agent --node-taint x=y:NoSchedule\n")
	f.Fuzz(func(t *testing.T, userData string) {
		n, ok, err := Read(userData)
		checkNode(t, n, ok, err)
		userData, script, _ := strings.Cut(userData, "\x00")
		n, ok, err = ReadAll(Source{Name: "user-data", Text: userData}, Source{Name: "startup-script", Text: script, Script: true})
		checkNode(t, n, ok, err)
	})
}

// checkNode fails t when a node read holds what no kubelet would register.
func checkNode(t *testing.T, n Node, ok bool, err error) {
	t.Helper()
	if err != nil || !ok {
		return
	}
	switch n.Bootstrap {
	case BootstrapScript, Nodeadm, Bottlerocket, K3s, RKE2, Kubeadm:
	default:
		t.Fatalf("bootstrap %q", n.Bootstrap)
	}
	for _, taint := range n.Taints {
		if taint.Key == "" || taint.Effect != "NoSchedule" && taint.Effect != "PreferNoSchedule" && taint.Effect != "NoExecute" {
			t.Fatalf("taint %+v", taint)
		}
	}
	for k, v := range n.Labels {
		if strings.Contains(k+v, computedMark) {
			t.Fatalf("label %q=%q holds what is computed at boot", k, v)
		}
		if n.Bootstrap != Bottlerocket && !selfLabelAllowed(k) {
			t.Fatalf("label %q a kubelet refuses", k)
		}
	}
}
