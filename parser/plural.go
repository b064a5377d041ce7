package parser

// Plural is the "s" of a count of n things in the readers' notes ("1 instance", "3 instances").
func Plural[N int | int64](n N) string {
	if n == 1 {
		return ""
	}
	return "s"
}
