package apistream

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/agentwire/agentwire/driver"
)

// The Response.Metadata keys of [Problems.Metadata], the same in every
// model-API parser.
const (
	MetaMalformed = "malformed"     // number of malformed events and framing errors, when any
	MetaProblem   = "first_problem" // the first one's reason, when any
	MetaUnknown   = "unknown"       // number of unknown events, blocks, members or part types, when any
)

// Problems counts what a stream held that the parser could not use as the
// protocol: malformed input (an event that is not JSON, an event out of
// order, a framing error) and unknown input (an event or block type newer
// than the parser, kept as a custom kind).
type Problems struct {
	Malformed int
	First     string // the first malformed input's reason
	Unknown   int
}

// Mark counts one malformed input.
func (p *Problems) Mark(why string) {
	p.Malformed++
	if p.First == "" {
		p.First = why
	}
}

// Metadata records the counts in a Response's Metadata: malformed and
// first_problem when anything was malformed, unknown when anything was
// unknown.
func (p *Problems) Metadata(m map[string]string) {
	if p.Malformed > 0 {
		m[MetaMalformed] = strconv.Itoa(p.Malformed)
		m[MetaProblem] = p.First
	}
	if p.Unknown > 0 {
		m[MetaUnknown] = strconv.Itoa(p.Unknown)
	}
}

// FramingError is what a parser keeps of a recoverable framing error (an
// sse.Error for an event over the size limit, whose bytes were skipped):
// the stdout transcript item and the Raw of the <provider>/malformed
// payload, both with the error's position when it has one (a Pos method,
// as every framing error has).
func FramingError(err error) (driver.TranscriptItem, map[string]any) {
	meta := map[string]string{"malformed": "framing error"}
	raw := map[string]any{"error": err.Error()}
	var pe interface{ Pos() (int64, int) }
	if errors.As(err, &pe) {
		off, line := pe.Pos()
		meta["line"], meta["offset"] = strconv.Itoa(line), strconv.FormatInt(off, 10)
		raw["line"], raw["offset"] = line, off
	}
	return driver.TranscriptItem{Kind: driver.TranscriptStdout, Text: err.Error(), Metadata: meta}, raw
}

// TrimJSON returns data without the JSON whitespace around it.
func TrimJSON(data []byte) []byte {
	i, j := 0, len(data)
	for i < j && isSpace(data[i]) {
		i++
	}
	for j > i && isSpace(data[j-1]) {
		j--
	}
	return data[i:j]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Terminal is the TerminalPayload of an event whose data is data and whose
// exact bytes in the body are raw: the data without the JSON whitespace
// around it, which must stand in raw as it is. A value split over several
// data: lines (or after an empty data line: "data\ndata: {...}" joins to
// "\n{...}") has no such bytes in the body: Terminal returns nil for it,
// and for empty data.
func Terminal(event string, data, raw []byte) *driver.TerminalPayload {
	d := TrimJSON(data)
	if len(d) == 0 || !bytes.Contains(raw, d) {
		return nil
	}
	return &driver.TerminalPayload{Event: event, JSON: bytes.Clone(d)}
}
