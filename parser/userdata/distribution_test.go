package userdata

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/gpuguard/gpuguard/parser"
)

// k3s, RKE2 and kubeadm nodes: what their user data registers them with, from the command line
// and from the configuration files the user data writes.
func TestReadSelfManagedDistributions(t *testing.T) {
	gpuTaint := parser.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: "NoSchedule"}
	for _, tc := range []readCase{
		{name: "k3s installer piped in: INSTALL_K3S_EXEC, then the script's arguments",
			userData: "#!/bin/bash\ncurl -sfL https://get.k3s.io | K3S_URL=https://10.0.0.10:6443 K3S_TOKEN=$TOKEN INSTALL_K3S_EXEC=\"agent --node-label gpu=l4\" sh -s - --node-taint nvidia.com/gpu=true:NoSchedule --node-label=tier=inference\n",
			want:     Node{Bootstrap: K3s, Cluster: "https://10.0.0.10:6443", Labels: map[string]string{"gpu": "l4", "tier": "inference"}, Taints: []parser.Taint{gpuTaint}}},
		{name: "k3s config.yaml from an unquoted here-document: plain variables expand, a computed value is unknown",
			userData: "#!/bin/bash\nPOOL=l4\nmkdir -p /etc/rancher/k3s\ncat > /etc/rancher/k3s/config.yaml <<EOF\nserver: https://k3s.internal:6443\ntoken: ${TOKEN}\nnode-label:\n  - \"pool=$POOL\"\n  - \"zone=$(curl -s http://169.254.169.254/latest/meta-data/placement/availability-zone)\"\nnode-taint:\n  - nvidia.com/gpu=true:NoSchedule\nEOF\ncurl -sfL https://get.k3s.io | sh -s - agent\n",
			want:     Node{Bootstrap: K3s, Cluster: "https://k3s.internal:6443", Labels: map[string]string{"pool": "l4"}, UnknownValues: []string{"zone"}, Taints: []parser.Taint{gpuTaint}}},
		{name: "a quoted here-document is read as written; the command line adds to the file's labels",
			userData: "#!/bin/sh\ncat <<'EOF' >/etc/rancher/k3s/config.yaml\nnode-label: \"pool=$POOL,team=ml\"\nEOF\n/usr/local/bin/k3s agent --node-label gpu=a10g --server https://k3s:6443\n",
			want:     Node{Bootstrap: K3s, Cluster: "https://k3s:6443", Labels: map[string]string{"pool": "$POOL", "team": "ml", "gpu": "a10g"}}},
		{name: "RKE2 from cloud-config: config.yaml.d in name order, + appends, other files ignored",
			userData: `#cloud-config
write_files:
  - path: /etc/rancher/rke2/config.yaml
    content: |
      server: https://rke2.internal:9345
      node-label: [a=1]
  - path: /etc/rancher/rke2/config.yaml.d/20-gpu.yaml
    content: |
      node-label+: [gpu=a100]
      node-taint+: ["nvidia.com/gpu=true:NoSchedule"]
  - path: /etc/rancher/rke2/config.yaml.d/10-base.yml
    content: |
      node-label: [b=2]
  - path: /etc/rancher/rke2/config.yaml.d/30-notes.txt
    content: "node-label: [c=3]"
runcmd:
  - curl -sfL https://get.rke2.io | INSTALL_RKE2_TYPE="agent" sh -
  - [systemctl, enable, --now, rke2-agent.service]
`,
			want: Node{Bootstrap: RKE2, Cluster: "https://rke2.internal:9345", Labels: map[string]string{"b": "2", "gpu": "a100"}, Taints: []parser.Taint{gpuTaint}}},
		{name: "an image with RKE2 installed: cloud-config's encoded files and the service started",
			userData: "#cloud-config\nwrite_files:\n  - path: /etc/rancher/rke2/config.yaml\n    encoding: gz+b64\n    content: " + gzipB64("node-label:\n  - workload=training\n") + "\n  - path: /etc/rancher/rke2/config.yaml\n    append: true\n    encoding: b64\n    content: " + b64("server: https://rke2:9345\n") + "\nruncmd:\n  - systemctl start rke2-agent\n",
			want:     Node{Bootstrap: RKE2, Cluster: "https://rke2:9345", Labels: map[string]string{"workload": "training"}}},
		{name: "RKE2 in a MIME archive: the cloud-config writes the file, the script starts the agent",
			userData: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n--B\nContent-Type: text/x-shellscript\n\n#!/bin/bash\nsystemctl enable --now rke2-agent\n--B\nContent-Type: text/cloud-config\n\nwrite_files:\n  - path: /etc/rancher/rke2/config.yaml\n    content: |\n      node-label: [gpu=h100]\n--B--\n",
			want:     Node{Bootstrap: RKE2, Labels: map[string]string{"gpu": "h100"}}},
		{name: "k3s kubelet-arg: node-labels and register-with-taints, in the file and on the command line",
			userData: "#!/bin/bash\ncat > /etc/rancher/k3s/config.yaml <<EOF\nnode-label: [pool=l4]\nkubelet-arg:\n  - \"max-pods=50\"\n  - \"node-labels=team=ml,tier=serve\"\nEOF\nk3s agent --kubelet-arg=--register-with-taints+=nvidia.com/gpu=true:NoSchedule --kubelet-arg node-labels+=gpu=l4 --kubelet-arg=eviction-hard=memory.available<5%\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"pool": "l4", "team": "ml", "tier": "serve", "gpu": "l4"}, Taints: []parser.Taint{gpuTaint}}},
		{name: "RKE2 kubelet-arg appended in a drop-in; a value computed at boot",
			userData: "#!/bin/bash\nmkdir -p /etc/rancher/rke2/config.yaml.d\necho 'kubelet-arg: [node-labels=a=b]' > /etc/rancher/rke2/config.yaml\necho 'kubelet-arg+: [\"node-labels=c=d\"]' > /etc/rancher/rke2/config.yaml.d/50-gpu.yaml\nrke2 agent --kubelet-arg \"node-labels=zone=$(cat /run/zone)\"\n",
			want:     Node{Bootstrap: RKE2, Labels: map[string]string{"a": "b", "c": "d"}, UnknownValues: []string{"zone"}}},
		{name: "kubeadm join: a JoinConfiguration piped into tee, and KUBELET_EXTRA_ARGS after it",
			userData: `#!/bin/bash
cat <<'EOF' | sudo tee /etc/kubeadm/join.yaml >/dev/null
apiVersion: kubeadm.k8s.io/v1beta4
kind: JoinConfiguration
discovery:
  bootstrapToken:
    apiServerEndpoint: 10.0.0.5:6443
    token: abcdef.0123456789abcdef
nodeRegistration:
  kubeletExtraArgs:
    - name: node-labels
      value: workload=training,gpu=h100
  taints:
    - key: nvidia.com/gpu
      value: "true"
      effect: NoSchedule
EOF
echo 'KUBELET_EXTRA_ARGS="--node-labels=team=ml,gpu=h100-80gb"' > /etc/default/kubelet
kubeadm join --config /etc/kubeadm/join.yaml
`,
			want: Node{Bootstrap: Kubeadm, Cluster: "10.0.0.5:6443", Labels: map[string]string{"workload": "training", "gpu": "h100-80gb", "team": "ml"}, Taints: []parser.Taint{gpuTaint}}},
		{name: "kubeadm join with a systemd drop-in's KUBELET_EXTRA_ARGS",
			userData: "#!/bin/bash\ncat > /etc/systemd/system/kubelet.service.d/20-labels.conf <<EOF\n[Service]\nEnvironment=\"KUBELET_EXTRA_ARGS=--node-labels=pool=t4 --register-with-taints=nvidia.com/gpu=true:NoSchedule\"\nEOF\nkubeadm join 10.0.0.5:6443 --token abc.def --discovery-token-ca-cert-hash sha256:00\n",
			want:     Node{Bootstrap: Kubeadm, Cluster: "10.0.0.5:6443", Labels: map[string]string{"pool": "t4"}, Taints: []parser.Taint{gpuTaint}}},
		{name: "kubeadm join's flags and their values before the API server's address",
			userData: "#!/bin/bash\nkubeadm join --token abc.def -v=5 --node-name gpu-1 --discovery-token-unsafe-skip-ca-verification 10.0.0.5:6443\n",
			want:     Node{Bootstrap: Kubeadm, Cluster: "10.0.0.5:6443", Labels: map[string]string{}}},
		{name: "kubeadm join with a configuration the user data does not write: unknown",
			userData: "#!/bin/bash\naws s3 cp s3://bucket/join.yaml /etc/kubeadm/join.yaml\nkubeadm join --config=/etc/kubeadm/join.yaml\n",
			want:     Node{Bootstrap: Kubeadm, Labels: map[string]string{}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "a file written where the script computes: labels and taints may be anywhere",
			userData: "#!/bin/bash\ncat > $(dirname $CFG)/config.yaml <<EOF\nnode-label: [a=b]\nEOF\nk3s agent --node-label c=d\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"c": "d"}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "flags from a variable computed at boot",
			userData: "#!/bin/bash\nk3s agent $EXTRA --node-label c=d\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"c": "d"}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "K3S_CONFIG_FILE names the configuration",
			userData: "#!/bin/bash\nexport K3S_CONFIG_FILE=/opt/k3s.yaml\necho 'node-label: [pool=l40s]' > /opt/k3s.yaml\necho 'node-label: [pool=wrong]' > /etc/rancher/k3s/config.yaml\ncurl -sfL https://get.k3s.io | sh -\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"pool": "l40s"}}},
		{name: "a script gpuguard cannot follow that starts no node is no error", userData: "#!/bin/bash\necho 'KUBELET_EXTRA_ARGS=x' > /etc/default/kubelet\necho 'open\n", notNode: true},
		{name: "appended to with >> and tee -a; echo -n; sudo",
			userData: "#!/bin/bash\necho -n 'node-label: ' > /etc/rancher/k3s/config.yaml\necho '[a=b]' >> /etc/rancher/k3s/config.yaml\necho 'node-taint: [nvidia.com/gpu=true:NoSchedule]' | sudo tee -a /etc/rancher/k3s/config.yaml >/dev/null\nsudo k3s agent\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"a": "b"}, Taints: []parser.Taint{gpuTaint}}},
		{name: "another descriptor redirected to the configuration: its text is not known",
			userData: "#!/bin/bash\necho 'node-label: [a=b]' > /etc/rancher/k3s/config.yaml\n/opt/prepare.sh 2>>/etc/rancher/k3s/config.yaml\nk3s agent\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "a configuration written again after an unknown write is known",
			userData: "#!/bin/bash\n/opt/render > /etc/rancher/k3s/config.yaml\necho 'node-label: [a=b]' > /etc/rancher/k3s/config.yaml\nk3s agent\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"a": "b"}}},
		{name: "the installer piped in on the next line, sh's -s from the pipe",
			userData: "#!/bin/bash\ncurl -sfL https://get.k3s.io |\n  sh -s - agent --node-label a=b\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"a": "b"}}},
		{name: "a mirror's installer: RKE2 by INSTALL_RKE2_TYPE",
			userData: "#!/bin/bash\necho 'node-label: [a=b]' > /etc/rancher/rke2/config.yaml\ncurl -sfL https://mirror.example.com/install.sh | INSTALL_RKE2_TYPE=agent sh -\n",
			want:     Node{Bootstrap: RKE2, Labels: map[string]string{"a": "b"}}},
		{name: "a mirror's installer: k3s by K3S_URL, computed at boot",
			userData: "#!/bin/bash\ncurl -sfL https://mirror.example.com/install.sh | K3S_URL=\"https://${SERVER_IP}:6443\" sh -s - --node-label a=b\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"a": "b"}}},
		{name: "a configuration copied from S3: unknown",
			userData: "#!/bin/bash\naws s3 cp s3://bucket/k3s.yaml /etc/rancher/k3s/config.yaml\nk3s agent --node-label a=b\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"a": "b"}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "a directory copied above config.yaml.d: unknown",
			userData: "#!/bin/bash\ncp -r /opt/rke2/ /etc/rancher/rke2\nsystemctl enable --now rke2-agent\n",
			want:     Node{Bootstrap: RKE2, Labels: map[string]string{}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "KUBELET_EXTRA_ARGS downloaded: unknown",
			userData: "#!/bin/bash\ncurl -fsSL -o /etc/default/kubelet https://config.example.com/kubelet\nkubeadm join 10.0.0.5:6443 --token t\n",
			want:     Node{Bootstrap: Kubeadm, Cluster: "10.0.0.5:6443", Labels: map[string]string{}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "cat of another file and the here-document: unknown",
			userData: "#!/bin/bash\ncat /opt/base.yaml - > /etc/rancher/k3s/config.yaml <<EOF\nnode-label: [a=b]\nEOF\nk3s agent\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "kubeadm join --config a path computed at boot",
			userData: "#!/bin/bash\nkubeadm join --config \"$CFG\"\n",
			want:     Node{Bootstrap: Kubeadm, Labels: map[string]string{}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "a file copied into config.yaml.d: unknown",
			userData: "#!/bin/bash\necho 'node-label: [a=b]' > /etc/rancher/k3s/config.yaml\ncp /opt/gpu.yaml /etc/rancher/k3s/config.yaml.d/\nk3s agent\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"a": "b"}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "a here-document the shell cannot expand: unknown",
			userData: "#!/bin/bash\ncat > /etc/rancher/k3s/config.yaml <<EOF\nnode-label: $(echo\nEOF\nk3s agent --node-label a=b\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"a": "b"}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "the command line's server wins over the file's; keys gpuguard does not read are not checked",
			userData: "#!/bin/bash\necho 'server: https://old:6443\nnode-label:\nnode-taint: \"\"\ndisable: {traefik: true}' > /etc/rancher/k3s/config.yaml\nk3s agent --server https://new:6443\n",
			want:     Node{Bootstrap: K3s, Cluster: "https://new:6443", Labels: map[string]string{}}},
		{name: "a label the file names and the command line computes: its value is unknown",
			userData: "#!/bin/bash\necho 'node-label: [zone=a, pool=gpu]' > /etc/rancher/k3s/config.yaml\nk3s agent --node-label \"zone=$(cloud-init query availability_zone)\"\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"pool": "gpu"}, UnknownValues: []string{"zone"}}},
		{name: "a label the file computes and the command line names: known",
			userData: "#!/bin/bash\ncat > /etc/rancher/k3s/config.yaml <<EOF\nnode-label: [\"zone=$(cloud-init query availability_zone)\"]\nEOF\nk3s agent --node-label zone=us-east-1a\n",
			want:     Node{Bootstrap: K3s, Labels: map[string]string{"zone": "us-east-1a"}}},
		{name: "kubeadm: a control plane's taint; only the JoinConfiguration of a file with several",
			userData: "#cloud-config\nwrite_files:\n  - path: /etc/kubeadm.yaml\n    content: |\n      apiVersion: kubeadm.k8s.io/v1beta3\n      kind: InitConfiguration\n      nodeRegistration:\n        kubeletExtraArgs: {node-labels: init=yes}\n      ---\n      apiVersion: kubeadm.k8s.io/v1beta3\n      kind: JoinConfiguration\n      controlPlane: {}\n      discovery:\n        bootstrapToken: {apiServerEndpoint: 10.0.0.5:6443}\nruncmd:\n  - kubeadm join --config /etc/kubeadm.yaml\n",
			want:     Node{Bootstrap: Kubeadm, Cluster: "10.0.0.5:6443", Labels: map[string]string{}, Taints: []parser.Taint{{Key: "node-role.kubernetes.io/control-plane", Effect: "NoSchedule"}}}},
		{name: "kubeadm: a drop-in copied into kubelet.service.d: unknown",
			userData: "#!/bin/bash\ncp /opt/20-gpu.conf /etc/systemd/system/kubelet.service.d/\nkubeadm join 10.0.0.5:6443 --token t\n",
			want:     Node{Bootstrap: Kubeadm, Cluster: "10.0.0.5:6443", Labels: map[string]string{}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "kubeadm: a JoinConfiguration the shell cannot expand: unknown",
			userData: "#!/bin/bash\ncat > /j.yaml <<EOF\nkind: $(echo\nEOF\nkubeadm join --config /j.yaml\n",
			want:     Node{Bootstrap: Kubeadm, Labels: map[string]string{}, LabelsUnknown: true, TaintsUnknown: true}},
		{name: "k3s that starts no node", userData: "#!/bin/bash\nk3s --version\nsystemctl disable --now k3s-agent\n", notNode: true},
		{name: "a k3s configuration written but nothing started", userData: "#!/bin/bash\necho 'node-label: [a=b]' > /etc/rancher/k3s/config.yaml\n", notNode: true},
		{name: "a k3s label the kubelet refuses",
			userData: "#!/bin/bash\necho 'node-label: [x=y]' > /etc/rancher/k3s/config.yaml\n\nk3s agent --node-label node-role.kubernetes.io/gpu=true\n",
			err:      "line 4: k3s: node-label: the kubelet refuses to start with node-role.kubernetes.io/gpu"},
		{name: "k3s kubelet-arg: a taint without an effect",
			userData: "#!/bin/bash\nk3s agent --kubelet-arg register-with-taints+=nvidia.com/gpu=true\n",
			err:      "line 2: k3s: kubelet-arg register-with-taints+: taint \"nvidia.com/gpu=true\" is not key=value:Effect"},
		{name: "a k3s configuration that is not YAML",
			userData: "#!/bin/bash\necho 'node-label: [a=b' > /etc/rancher/k3s/config.yaml\nk3s agent\n",
			err:      "line 3: k3s: /etc/rancher/k3s/config.yaml: yaml: "},
		{name: "a JoinConfiguration taint's effect",
			userData: "#cloud-config\nwrite_files:\n  - path: /j.yaml\n    content: |\n      apiVersion: kubeadm.k8s.io/v1beta3\n      kind: JoinConfiguration\n      nodeRegistration:\n        taints: [{key: gpu, effect: NoScheduled}]\nruncmd:\n  - kubeadm join --config /j.yaml\n",
			err:      `line 1: kubeadm: /j.yaml: nodeRegistration: taints: taint "gpu=:NoScheduled"`},
	} {
		t.Run(tc.name, tc.check)
	}
}

// The scanner keeps where a command's output goes, apart from its arguments: standard output's
// files (> and >>, &>), another descriptor's (2>, 2>>), and not input or a duplicated descriptor.
func TestShellRedirections(t *testing.T) {
	commands, err := shellCommands("cmd a > out 2>> err >&2 < in b 1>>log &>all 3>&- c\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(commands) != 1 {
		t.Fatalf("commands %+v", commands)
	}
	var words []string
	for _, w := range commands[0].words {
		words = append(words, w.text)
	}
	type kept struct {
		target        string
		append, other bool
	}
	var got []kept
	for _, r := range commands[0].redirects {
		got = append(got, kept{r.target.text, r.append, r.other})
	}
	want := []kept{{"out", false, false}, {"err", true, true}, {"log", true, false}, {"all", false, false}}
	if strings.Join(words, " ") != "cmd a b c" || !slices.Equal(got, want) {
		t.Errorf("words %q, redirects %+v; want %+v", words, got, want)
	}
}

// ReadAll reads the texts a machine boots with in the order they run: a startup script is a
// shell script with or without #!, a file cloud-init's user data writes is there for the
// startup script's k3s to read, and an error names the text it is in.
func TestReadAllSources(t *testing.T) {
	const agent = "k3s agent --server https://k3s.internal:6443 --node-label workload=inference"
	const writes = "#cloud-config\nwrite_files:\n  - path: /etc/rancher/k3s/config.yaml\n    content: |\n      node-label: [pool=l4]\n      node-taint: [gpu=true:NoSchedule]\n"
	for _, tc := range []struct {
		name    string
		sources []Source
		want    Node
		notNode bool
		err     string
		errAt   int // the index of the source the error is in
	}{
		{name: "a startup script without #!", sources: []Source{{Name: "startup-script", Text: agent, Script: true}},
			want: Node{Bootstrap: K3s, Cluster: "https://k3s.internal:6443", Labels: map[string]string{"workload": "inference"}}},
		{name: "the same text as user data is not a script cloud-init runs", sources: []Source{{Text: agent}}, notNode: true},
		{name: "user data writes the configuration, the startup script starts k3s", sources: []Source{{Name: "user-data", Text: b64(writes)}, {Name: "startup-script", Text: agent, Script: true}},
			want: Node{Bootstrap: K3s, Cluster: "https://k3s.internal:6443", Labels: map[string]string{"pool": "l4", "workload": "inference"}, Taints: []parser.Taint{{Key: "gpu", Value: "true", Effect: "NoSchedule"}}}},
		{name: "an error in a script names it", sources: []Source{{Name: "user-data", Text: writes}, {Name: "startup-script", Text: "k3s agent --node-taint gpu=true:Sometimes", Script: true}},
			err: "startup-script: line 1: k3s: ", errAt: 1},
		{name: "an error in a file one text writes is the launching text's", sources: []Source{{Name: "user-data", Text: strings.Replace(writes, "NoSchedule", "Sometimes", 1)}, {Name: "startup-script", Text: agent, Script: true}},
			err: "startup-script: line 1: k3s: ", errAt: 1},
		{name: "a text that cannot be decoded", sources: []Source{{Name: "user-data", Text: writes}, {Name: "custom_data", Text: "H4sIAAAA"}, {Name: "startup-script", Text: agent, Script: true}},
			err: "custom_data: user data: gzip: ", errAt: 1},
		{name: "an error in user data names it", sources: []Source{{Name: "user-data", Text: "#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=kubernetes.io/x=y'\n"}, {Name: "startup-script", Text: agent, Script: true}},
			err: "user-data: line 2: bootstrap.sh --kubelet-extra-args: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := ReadAll(tc.sources...)
			if tc.err != "" || err != nil {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) || tc.err == "" {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				var se *SourceError
				if !errors.As(err, &se) || se.Index != tc.errAt || se.Name != tc.sources[tc.errAt].Name {
					t.Errorf("error %#v, want a SourceError at source %d", err, tc.errAt)
				}
				return
			}
			if ok == tc.notNode {
				t.Fatalf("read a node %v, want %v", ok, !tc.notNode)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); ok && diff != "" {
				t.Errorf("node (-want +got):\n%s", diff)
			}
		})
	}
}
