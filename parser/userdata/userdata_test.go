package userdata

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuguard/gpuguard/parser"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// wrap breaks base64 into MIME's 76-character lines.
func wrap(s string) string {
	var lines []string
	for len(s) > 76 {
		lines, s = append(lines, s[:76]), s[76:]
	}
	return strings.Join(append(lines, s), "\n")
}

func gzipB64(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// al2023MIME is user data as the terraform-aws-modules/eks module and EKS's docs write it for
// Amazon Linux 2023: a MIME archive with a NodeConfig part and a script part.
const al2023MIME = `MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="BOUNDARY"

--BOUNDARY
Content-Type: application/node.eks.aws

---
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: ml
    apiServerEndpoint: https://example.com
  kubelet:
    config:
      registerWithTaints:
        - key: nvidia.com/gpu
          value: "true"
          effect: NoSchedule
    flags:
      - --node-labels=workload=training,accelerator=h100

--BOUNDARY
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
echo "ready"

--BOUNDARY--
`

func TestRead(t *testing.T) {
	gpuTaint := parser.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}
	for _, tc := range []readCase{
		{name: "AL2 bootstrap.sh, base64",
			userData: b64("#!/bin/bash\nset -e\n/etc/eks/bootstrap.sh ml --b64-cluster-ca abc --kubelet-extra-args '--node-labels=workload=inference,team=ml --register-with-taints=nvidia.com/gpu=true:NoSchedule,spot:PreferNoSchedule' --apiserver-endpoint https://x\n"),
			want: Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"workload": "inference", "team": "ml"},
				Taints: []parser.Taint{gpuTaint, {Key: "spot", Effect: "PreferNoSchedule"}}}},
		{name: "the cluster after options, labels as the flag's next word, continued lines",
			userData: "#!/bin/bash\n/etc/eks/bootstrap.sh \\\n  --container-runtime containerd \\\n  --kubelet-extra-args \"--node-labels workload=batch\" \\\n  ml\n",
			want:     Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"workload": "batch"}}},
		{name: "labels from a variable the script assigns",
			userData: "#!/bin/bash\nexport LABELS=\"workload=inference\"\nCLUSTER=ml\n/etc/eks/bootstrap.sh ${CLUSTER} --kubelet-extra-args \"--node-labels=$LABELS,tier=gpu\"\n",
			want:     Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"workload": "inference", "tier": "gpu"}}},
		{name: "a label's value computed at boot is unknown; its name, the other labels and the taints stay known",
			userData: "#!/bin/bash\nZONE=$(curl -s http://169.254.169.254/latest/meta-data/placement/availability-zone)\n/etc/eks/bootstrap.sh ml --kubelet-extra-args \"--node-labels=zone=$ZONE,pool=gpu --register-with-taints=nvidia.com/gpu=true:NoSchedule\"\n",
			want:     Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"pool": "gpu"}, UnknownValues: []string{"zone"}, Taints: []parser.Taint{gpuTaint}}},
		{name: "a label's name computed at boot: any label",
			userData: "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args \"--node-labels=pool=gpu,$(hostname)=1\"\n",
			want:     Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"pool": "gpu"}, LabelsUnknown: true}},
		{name: "a computed value of a label the kubelet refuses",
			userData: "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args \"--node-labels=node-role.kubernetes.io/gpu=$ROLE\"\n",
			err:      "line 2: bootstrap.sh --kubelet-extra-args: kubelet flag --node-labels: the kubelet refuses to start with node-role.kubernetes.io/gpu"},
		{name: "extra args from the environment: labels and taints unknown",
			userData: "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args \"$KUBELET_EXTRA_ARGS\"\n",
			want:     Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "a here-document and comments before the call",
			userData: "#!/bin/bash\n# runs /etc/eks/bootstrap.sh other --kubelet-extra-args '--node-labels=no=1'\ncat <<-'EOF' > /etc/motd\n\tdon't \"quote\" here\n\tEOF\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=workload=inference' # --kubelet-extra-args '--node-labels=no=2'\n",
			want:     Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"workload": "inference"}}},
		{name: "run by sudo and bash with their options", userData: "#!/bin/bash\nsudo -E bash -x /etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=workload=inference'\n",
			want: Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"workload": "inference"}}},
		{name: "gzip", userData: gzipB64("#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=workload=inference'\n"),
			want: Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"workload": "inference"}}},
		{name: "AL2023 MIME archive", userData: b64(al2023MIME),
			want: Node{Bootstrap: Nodeadm, Cluster: "ml", Labels: map[string]string{"workload": "training", "accelerator": "h100"}, Taints: []parser.Taint{gpuTaint}}},
		{name: "AL2023 MIME: a base64 part in lines, CRLF, the later NodeConfig naming the cluster", userData: strings.ReplaceAll("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: application/node.eks.aws\nContent-Transfer-Encoding: base64\n\n"+
			wrap(b64("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: old\n  kubelet:\n    flags: [\"--node-labels=workload=training\"]\n"))+
			"\n--//\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: ml\n--//--\n", "\n", "\r\n"),
			want: Node{Bootstrap: Nodeadm, Cluster: "ml", Labels: map[string]string{"workload": "training"}}},
		{name: "a NodeConfig alone", userData: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: ml\n",
			want: Node{Bootstrap: Nodeadm, Cluster: "ml", Labels: map[string]string{}}},
		{name: "Bottlerocket",
			userData: b64("[settings.kubernetes]\ncluster-name = \"ml\"\n[settings.kubernetes.node-labels]\n\"workload\" = \"inference\"\n[settings.kubernetes.node-taints]\n\"nvidia.com/gpu\" = [\"true:NoSchedule\", \"true:NoExecute\"]\ndedicated = \":PreferNoSchedule\"\n"),
			want: Node{Bootstrap: Bottlerocket, Cluster: "ml", Labels: map[string]string{"workload": "inference"},
				Taints: []parser.Taint{{Key: "dedicated", Effect: "PreferNoSchedule"}, gpuTaint, {Key: "nvidia.com/gpu", Value: "true", Effect: "NoExecute"}}}},
		{name: "a script that does not join a cluster", userData: "#!/bin/bash\nyum install -y nvidia-driver\necho bootstrap.sh is not run\n", notNode: true},
		{name: "only a comment names bootstrap.sh", userData: "#!/bin/bash\n# /etc/eks/bootstrap.sh ml\n", notNode: true},
		{name: "cloud-config runcmd, a list of words", userData: "#cloud-config\nruncmd:\n  - [/etc/eks/bootstrap.sh, ml, --kubelet-extra-args, '--node-labels=a=b c']\n",
			want: Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"a": "b"}}},
		{name: "cloud-config that is not YAML is skipped, as cloud-init skips it", userData: "#cloud-config\nruncmd: [\n", notNode: true},
		{name: "redirections are not arguments", userData: "#!/bin/bash\nexec > >(tee /var/log/user-data.log) 2>&1\n/etc/eks/bootstrap.sh >>/var/log/boot.log 2>&1 ml --kubelet-extra-args '--node-labels=a=b' &>/dev/null\n",
			want: Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"a": "b"}}},
		{name: "Bottlerocket settings without settings.kubernetes", userData: "[settings.host-containers.admin]\nenabled = true\n", notNode: true},
		{name: "a label the kubelet refuses",
			userData: "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=node-role.kubernetes.io/gpu=true'\n",
			err:      "line 2: bootstrap.sh --kubelet-extra-args: kubelet flag --node-labels: the kubelet refuses to start with node-role.kubernetes.io/gpu"},
		{name: "an allowed kubernetes.io label", userData: "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=node.kubernetes.io/lifecycle=spot'\n",
			want: Node{Bootstrap: BootstrapScript, Cluster: "ml", Labels: map[string]string{"node.kubernetes.io/lifecycle": "spot"}}},
		{name: "a taint without an effect", userData: "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--register-with-taints=gpu=true'\n",
			err: `line 2: bootstrap.sh --kubelet-extra-args: kubelet flag --register-with-taints: taint "gpu=true" is not key=value:Effect`},
		{name: "a NodeConfig taint's effect", userData: al2023MIME[:strings.Index(al2023MIME, "NoSchedule")] + "NoScheduled\n--BOUNDARY--\n",
			err: `MIME user data, part 1 (application/node.eks.aws): NodeConfig spec.kubelet.config.registerWithTaints: taint "nvidia.com/gpu=true:NoScheduled": the effect is "NoScheduled"`},
		{name: "an open quote", userData: "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=a=b\n", err: "line 2: a single quote is not closed"},
		{name: "a Bottlerocket taint that is not text", userData: "[settings.kubernetes.node-taints]\ngpu = 1\n", err: `settings.kubernetes.node-taints."gpu" is 1`},
	} {
		t.Run(tc.name, tc.check)
	}
}

// readCase is user data and what Read says of it: the node, no node, or an error that
// starts with err.
type readCase struct {
	name, userData string
	want           Node
	notNode        bool
	err            string
}

func (tc readCase) check(t *testing.T) {
	got, ok, err := Read(tc.userData)
	if tc.err != "" {
		if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
			t.Fatalf("error %v, want %q", err, tc.err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if ok == tc.notNode {
		t.Fatalf("ok = %v for %+v", ok, got)
	}
	if tc.notNode {
		return
	}
	if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(Node{}, "Settings"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("node (-want +got):\n%s", diff)
	}
	if (got.Bootstrap == Bottlerocket) != (got.Settings != nil) {
		t.Errorf("settings %v for a %s node", got.Settings, got.Bootstrap)
	}
}

// A variable doubled line after line grows past what user data can hold: it is read as computed
// at boot, in bounded time and memory.
func TestReadBoundsVariables(t *testing.T) {
	script := "#!/bin/bash\nA=x\n" + strings.Repeat("A=$A$A\n", 40) + "/etc/eks/bootstrap.sh ml --kubelet-extra-args \"--node-labels=a=$A\"\n"
	n, ok, err := Read(script)
	if err != nil || !ok || len(n.UnknownValues) != 1 || n.UnknownValues[0] != "a" || len(n.Labels) != 0 {
		t.Fatalf("%+v %v %v", n, ok, err)
	}
}
