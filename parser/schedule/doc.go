// Package schedule works out how many instances a group runs on average when a schedule changes
// its size at the times a cron expression names: EC2 Auto Scaling's scheduled actions and Azure
// Monitor's recurring autoscale profiles (Simulate: each run sets the group's limits and size,
// which hold until the next), and Compute Engine's scaling schedules (Floors: each run keeps a
// floor for a duration). Teams scale GPU groups down at night and up in the morning this way.
// It replays a year and returns the average, the peak and the low; it reads no configuration
// itself.
package schedule
