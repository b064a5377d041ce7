// Package schedule works out how many instances a group runs on average when scheduled actions
// change its size at the times a cron expression names (EC2 Auto Scaling's scheduled scaling:
// scale a GPU group down at night and up in the morning). It replays the actions over a year
// and returns the average, the peak and the low; it reads no configuration itself.
package schedule
