package command

import (
	"fmt"
	"strings"
)

// Role is the least repository role (write, maintain or admin: the
// configured `commands.permission`) that runs the commands of one loop
// id; LoopID "" stands for every loop.
type Role struct {
	LoopID string
	Min    string
}

// Who is who may run the commands, as the help tells it: one Role for
// all loops, or one per configured loop id (in the order given). Empty
// means the default, write.
type Who []Role

// String words Who as one markdown sentence. Loops that share a role are
// named together; when every loop has the same role, no loop is named.
func (w Who) String() string {
	var order []string
	byMin := map[string][]string{}
	for _, r := range w {
		min := r.Min
		if rank(min) < rank("write") {
			min = "write"
		}
		if _, ok := byMin[min]; !ok {
			order = append(order, min)
		}
		byMin[min] = append(byMin[min], r.LoopID)
	}
	if len(order) == 0 {
		order, byMin = []string{"write"}, map[string][]string{"write": nil}
	}
	const lead = "**Who may run them:** "
	const tail = " (checked through GitHub's collaborator-permission API); `/gc help` is answered for anyone. Comments by bots are ignored."
	if len(order) == 1 {
		return lead + "users with " + roles(order[0]) + " permission on the repository" + tail
	}
	parts := make([]string, len(order))
	for i, min := range order {
		names := make([]string, 0, len(byMin[min]))
		for _, id := range byMin[min] {
			if id == "" {
				names = append(names, "the other loops")
				continue
			}
			names = append(names, code(id))
		}
		parts[i] = fmt.Sprintf("users with %s permission for %s", roles(min), strings.Join(names, ", "))
	}
	return lead + strings.Join(parts, "; ") + tail
}

// roles words a least role and the roles above it: "**write**, maintain or
// admin".
func roles(min string) string {
	above := levels[rank(min)+1:]
	if len(above) == 0 {
		return "**" + min + "**"
	}
	s := "**" + min + "**"
	if len(above) > 1 {
		s += ", " + strings.Join(above[:len(above)-1], ", ")
	}
	return s + " or " + above[len(above)-1]
}
