// Package calc is a tiny package whose tests produce a JUnit fixture.
package calc

// Add returns a+b.
func Add(a, b int) int { return a + b }

// Sub returns a-b, with a deliberate bug so that one test fails.
func Sub(a, b int) int { return a - b + 1 }
