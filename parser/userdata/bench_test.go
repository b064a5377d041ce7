package userdata

import "testing"

// BenchmarkRead reads the user data of one node group: an AL2 script, an AL2023 MIME archive and
// a k3s agent's script, each base64 as a launch template holds it.
func BenchmarkRead(b *testing.B) {
	for _, bc := range []struct{ name, userData string }{
		{"AL2", b64("#!/bin/bash\nset -e\nexport LABELS=\"workload=inference\"\ncat <<'EOF' > /etc/motd\nhello\nEOF\n/etc/eks/bootstrap.sh ml --kubelet-extra-args \"--node-labels=$LABELS,team=ml --register-with-taints=dedicated=ml:NoSchedule\" --b64-cluster-ca $B64_CLUSTER_CA --apiserver-endpoint $API_SERVER_URL\n")},
		{"AL2023", b64(al2023MIME)},
		{"k3s", b64("#!/bin/bash\nset -euo pipefail\nPOOL=l40s\nmkdir -p /etc/rancher/k3s\ncat > /etc/rancher/k3s/config.yaml <<EOF\nserver: https://k3s.internal:6443\nnode-label:\n  - \"gpu-pool=$POOL\"\n  - \"zone=$(cloud-init query availability_zone)\"\nEOF\ncurl -sfL https://get.k3s.io | INSTALL_K3S_EXEC=\"agent\" sh -s - --node-taint nvidia.com/gpu=present:NoSchedule\n")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := Read(bc.userData); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
