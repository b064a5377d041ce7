package parser

import "math"

// CapacityBlockReason is why an instance in an EC2 Capacity Block for ML is not priced: the
// block is paid upfront, at the price of the offering it was bought from (set by AWS per
// purchase, not a list price), and the instances it runs cost nothing more. On-demand rates
// would be wrong either way. https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-capacity-blocks.html
const CapacityBlockReason = "runs in an EC2 Capacity Block for ML, paid upfront at the price of the offering the block was bought from, which the catalog does not hold; on-demand rates do not apply"

// MixedOnDemand is how many of n instances an Auto Scaling group's instances distribution runs
// on demand: the first base, then pct percent of the rest, rounded up (the costlier side).
// https://docs.aws.amazon.com/autoscaling/ec2/userguide/mixed-instances-groups-set-up-overview.html
func MixedOnDemand(n, base, pct int) int {
	onDemand := min(base, n)
	return onDemand + int(math.Ceil(float64(n-onDemand)*float64(pct)/100))
}
