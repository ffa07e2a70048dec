package command

import (
	"strconv"
	"strings"
)

// replyMarkerPrefix opens the hidden marker that ties a reply to the
// comment it answers.
const replyMarkerPrefix = "<!-- gcloop:reply "

// Marked appends to a reply the hidden marker of the comment it answers,
// so that a redelivered event, or a re-run of the workflow, finds the
// reply already posted (Answers) and posts no second one.
func Marked(reply string, commentID int64) string {
	return strings.TrimRight(reply, "\n") + "\n\n" + replyMarkerPrefix + strconv.FormatInt(commentID, 10) + " -->"
}

// Answers reports whether a comment body is a reply Marked for commentID:
// its last line is the marker. Whether the comment was written by gcloop
// is the caller's check.
func Answers(body string, commentID int64) bool {
	body = strings.TrimRight(body, "\r\n")
	i := strings.LastIndexByte(body, '\n')
	return body[i+1:] == replyMarkerPrefix+strconv.FormatInt(commentID, 10)+" -->"
}
