package terraform

func inZone(tz string) string {
	if tz == "" {
		return ", UTC"
	}
	return ", " + tz
}
