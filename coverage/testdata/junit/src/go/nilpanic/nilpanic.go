// Package nilpanic has a test that dereferences a nil pointer.
package nilpanic

// Node is a list node.
type Node struct {
	Next *Node
	Val  int
}

// Second returns the value of the second node.
func Second(n *Node) int { return n.Next.Val }
