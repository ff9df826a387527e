package apistream

import "bytes"

// StatusOK reports whether an HTTP status is a success: 200..299, or 0
// (unknown, read as 200). Outside it the body is an error document, not an
// event stream, whatever its content type.
func StatusOK(status int) bool { return status == 0 || status >= 200 && status <= 299 }

// Body is what the first bytes of a response body say it is.
type Body uint8

const (
	BodyUnknown Body = iota // nothing yet but a byte order mark and whitespace, or something else
	BodyJSON                // a JSON document: the first byte is '{' or '['
	BodySSE                 // an event stream: a line starting "data:", "event:", "id:", "retry:" or ":"
)

// Sniff tells a JSON document from an event stream by the first bytes of a
// body (after a UTF-8 byte order mark and whitespace). The model APIs
// serve error bodies as JSON, sometimes with a text/event-stream content
// type, so the bytes are more reliable than the header; BodyUnknown leaves
// the decision to it.
func Sniff(head []byte) Body {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	i := 0
	for i < len(head) && isSpace(head[i]) {
		i++
	}
	if i == len(head) {
		return BodyUnknown
	}
	switch head[i] {
	case '{', '[':
		return BodyJSON
	case ':':
		return BodySSE
	}
	for _, f := range []string{"data", "event", "id", "retry"} {
		if rest, ok := bytes.CutPrefix(head[i:], []byte(f)); ok && len(rest) > 0 && rest[0] == ':' {
			return BodySSE
		}
	}
	return BodyUnknown
}
