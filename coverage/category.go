package coverage

// Categorize returns the failure category of a test failure message.
func Categorize(message string) string { return "other" }
