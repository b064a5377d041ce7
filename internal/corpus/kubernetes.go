package corpus

import (
	"bytes"
	"fmt"
)

// KubernetesStream returns a multi-document manifest stream of n documents: in each group of
// six, a Deployment with GPUs, its Service, a ConfigMap, an HPA, a CronJob with GPUs and (every
// 60 documents) a Karpenter NodePool, else a ServiceAccount.
func KubernetesStream(n int) []byte {
	var b bytes.Buffer
	types := []string{"g5.xlarge", "g6.xlarge", "g6e.2xlarge", "p4d.24xlarge", "p5.48xlarge"}
	for i := 0; i < n; i++ {
		g := i / 6
		b.WriteString("---\n")
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%[1]d
  namespace: team-%[2]d
  labels: {team: team-%[2]d, app: app-%[1]d}
  annotations:
    gpuguard.dev/ignore: "GPU007=tracked in JIRA-%[1]d"
spec:
  replicas: %[3]d
  selector:
    matchLabels: {app: app-%[1]d}
  template:
    metadata:
      labels: {app: app-%[1]d}
    spec:
      nodeSelector:
        node.kubernetes.io/instance-type: %[4]s
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: server
          image: registry.example.com/app:%[1]d
          ports: [{containerPort: 8000}]
          env:
            - {name: MODEL, value: llama-%[1]d}
          resources:
            requests: {cpu: "4", memory: 16Gi, nvidia.com/gpu: "1"}
            limits: {cpu: "8", memory: 32Gi, nvidia.com/gpu: "1"}
`, g, g%20, 1+g%4, types[g%len(types)])
		case 1:
			fmt.Fprintf(&b, `apiVersion: v1
kind: Service
metadata: {name: app-%[1]d, namespace: team-%[2]d}
spec:
  selector: {app: app-%[1]d}
  ports: [{port: 80, targetPort: 8000}]
`, g, g%20)
		case 2:
			fmt.Fprintf(&b, `apiVersion: v1
kind: ConfigMap
metadata: {name: app-%[1]d, namespace: team-%[2]d}
data:
  config.yaml: |
    batch_size: 16
    max_tokens: 4096
`, g, g%20)
		case 3:
			fmt.Fprintf(&b, `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: app-%[1]d, namespace: team-%[2]d}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: app-%[1]d}
  minReplicas: 1
  maxReplicas: 10
`, g, g%20)
		case 4:
			fmt.Fprintf(&b, `apiVersion: batch/v1
kind: CronJob
metadata: {name: job-%[1]d, namespace: team-%[2]d}
spec:
  schedule: "%[3]d 3 * * *"
  jobTemplate:
    spec:
      activeDeadlineSeconds: 3600
      template:
        spec:
          restartPolicy: Never
          nodeSelector: {karpenter.k8s.aws/instance-gpu-name: l4}
          containers:
            - name: job
              image: registry.example.com/job:%[1]d
              resources:
                limits: {nvidia.com/gpu: 1}
`, g, g%20, g%60)
		case 5:
			if g%10 == 0 {
				fmt.Fprintf(&b, `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool-%[1]d}
spec:
  template:
    spec:
      requirements:
        - {key: karpenter.k8s.aws/instance-family, operator: In, values: [g6, g6e]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
`, g)
			} else {
				fmt.Fprintf(&b, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa-%d, namespace: team-%d}\n", g, g%20)
			}
		}
	}
	return b.Bytes()
}
