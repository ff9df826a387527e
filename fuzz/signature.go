package fuzz

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/agentwire/agentwire/provider"
)

// Signature is the outcome of data under a target, with the input's
// payload bytes left out: the sequence of frame kinds, classes and error
// sentinels for the readers, and of transcript item kinds and the
// terminal, checkpoint and failure for the parsers. `campaign minimize`
// keeps the smallest input per signature. It returns "" for an input the
// target rejects.
func Signature(target string, data []byte) string {
	var recs []string
	var err error
	switch target {
	case "FuzzSSE":
		recs, err = SSEFrames(bytes.NewReader(data), data)
	case "FuzzNDJSON":
		recs, err = NDJSONFrames(bytes.NewReader(data), data)
	case "FuzzJSONRPC":
		recs, err = JSONRPCFrames(bytes.NewReader(data), data)
	case "FuzzCodec":
		return fmt.Sprintf("%d fields", bytes.Count(data, []byte{0}))
	case "FuzzChunking":
		a, _ := SSEFrames(bytes.NewReader(data), data)
		b, _ := NDJSONFrames(bytes.NewReader(data), data)
		c, _ := JSONRPCFrames(bytes.NewReader(data), data)
		s := shape(a) + "|" + shape(b) + "|" + shape(c) + "|"
		for _, p := range Providers() {
			s += parserSignature(p, data)
		}
		return s
	default:
		// A provider target is "Fuzz" and the provider's name (any case,
		// without its hyphens: FuzzOpenAIChat is openai-chat's).
		name := strings.ToLower(strings.TrimPrefix(target, "Fuzz"))
		for _, p := range provider.All() {
			if strings.ReplaceAll(p.Name, "-", "") == name {
				return parserSignature(fuzzProvider(p), data)
			}
		}
		return ""
	}
	if err != nil {
		return ""
	}
	return shape(recs)
}

// parserSignature is the signature of a parser run over data: the kinds of
// the transcript and the outcome.
func parserSignature(p Provider, data []byte) string {
	r, err := p.Run(bytes.NewReader(data), strings.NewReader(stderrOf), Seed(data))
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, it := range r.Response.Transcript {
		fmt.Fprintf(&b, "%v/%s ", it.Kind, it.Subtype)
	}
	cp := r.Response.Checkpoint
	fmt.Fprintf(&b, "| terminal=%v valid=%v failure=%v err=%v", r.Response.RawStreams != nil && r.Response.RawStreams.Terminal != nil,
		cp != nil && cp.Valid, r.Response.Failure != nil, r.Err != nil)
	return b.String()
}

// shape keeps the kind (and, for errors, the sentinel) of each record.
func shape(recs []string) string {
	var b strings.Builder
	for _, r := range mergeSkipped(recs) {
		if strings.HasPrefix(r, "error ") {
			if i := strings.Index(r, "): "); i > 0 {
				msg := r[i+3:]
				if j := strings.IndexAny(msg, "(:\""); j > 0 {
					msg = msg[:j]
				}
				r = "error " + msg
			}
		} else if i := strings.IndexByte(r, '@'); i > 0 {
			r = r[:i]
		}
		b.WriteString(strings.TrimSpace(r))
		b.WriteByte(';')
	}
	return b.String()
}
