package userdata

import "testing"

// BenchmarkRead reads the user data of one node group: an AL2 script and an AL2023 MIME archive,
// each base64 as a launch template holds it.
func BenchmarkRead(b *testing.B) {
	for _, bc := range []struct{ name, userData string }{
		{"AL2", b64("#!/bin/bash\nset -e\nexport LABELS=\"workload=inference\"\ncat <<'EOF' > /etc/motd\nhello\nEOF\n/etc/eks/bootstrap.sh ml --kubelet-extra-args \"--node-labels=$LABELS,team=ml --register-with-taints=dedicated=ml:NoSchedule\" --b64-cluster-ca $B64_CLUSTER_CA --apiserver-endpoint $API_SERVER_URL\n")},
		{"AL2023", b64(al2023MIME)},
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
