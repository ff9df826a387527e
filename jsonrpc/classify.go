package jsonrpc

import (
	"bytes"
	"errors"
	"math"

	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
)

// Classify classifies one ndjson frame as a JSON-RPC message, following
// the rules of the package doc. It returns the Frame (always carrying the
// ndjson frame's Raw, Data and position, whatever the class) and, for a
// frame of class Invalid, a *MessageError saying why. Blank lines and the
// BOM give class None and a nil error. The returned slices alias f's.
//
// Classify does not allocate for a valid message whose member names carry
// no escapes.
func Classify(f ndjson.Frame, opts Options) (Frame, error) {
	return classifyIndexed(f, opts, nil)
}

// classifyIndexed is Classify that also records, in idx (reused), the
// index Frame.Members replays (a Reader's and a Decoder's frames have
// one; idx nil records none).
func classifyIndexed(f ndjson.Frame, opts Options, idx *jsonguard.Index) (Frame, error) {
	var m Frame
	if err := classifyInto(&m, f, opts, idx); err != nil {
		return m, err
	}
	return m, nil
}

// classifyInto is classifyIndexed writing the Frame into m (a Reader's
// own); the error is nil or a *MessageError.
func classifyInto(m *Frame, f ndjson.Frame, opts Options, idx *jsonguard.Index) *MessageError {
	*m = Frame{Kind: f.Kind, Data: f.Data, Raw: f.Raw, Offset: f.Offset, Line: f.Line, Unterminated: f.Unterminated}
	if f.Kind != ndjson.KindLine {
		return nil
	}
	m.requireVersion = opts.RequireVersion
	m.maxDepth = opts.MaxDepth
	if err := classify(m, f.Data, opts.MaxDepth, opts.RequireVersion, true, idx); err != nil {
		m.Class = Invalid
		err.Line, err.Offset = f.Line, f.Offset+err.Offset
		if err.Column > 0 {
			err.Column = int(err.Offset-f.Offset) + 1
		}
		return err
	}
	return nil
}

// indexLevels is how deep a frame's index goes (jsonguard.CheckIndex's
// levels): the message's members at level 1, params' (or result's)
// members at 2, the members of their object values at 3 and theirs at 4
// (an ACP session/update's params.update.content.text).
const indexLevels = 4

// maxIndex bounds a frame's index (jsonguard.Index.Max): a line with
// more nested members than this gets none (Members walks), so that the
// index's memory stays small whatever a line holds.
const maxIndex = 1024

// classify fills m's class and member spans from b, and with idx the
// index (see Frame.Members). Error offsets are relative to b; the caller
// makes them absolute. allowBatch is false for batch elements (a batch
// inside a batch is invalid).
func classify(m *Frame, b []byte, maxDepth int, requireVersion, allowBatch bool, idx *jsonguard.Index) *MessageError {
	// One pass validates the line and hands over its top-level members
	// (what it records counts only when the line is valid), and with idx
	// the nested ones for the index: the member values are not walked a
	// second time, here or by a parser that reads nested members.
	var (
		version, method, id, params, result, errObj                  []byte
		hasVersion, hasMethod, hasID, hasParams, hasResult, hasError bool
	)
	top := func(lit, v []byte) {
		// A name of one of the cases' very bytes has no escape (none of
		// them holds a backslash), so the raw name is matched first and
		// only one that matches none is scanned for a backslash and, with
		// one, matched again unescaped.
		name := lit[1 : len(lit)-1]
		for unescaped := false; ; unescaped = true {
			switch string(name) {
			case "jsonrpc":
				version, hasVersion = v, true
				return
			case "method":
				method, hasMethod = v, true
				return
			case "id":
				id, hasID = v, true
				return
			case "params":
				params, hasParams = v, true
				return
			case "result":
				result, hasResult = v, true
				return
			case "error":
				errObj, hasError = v, true
				return
			}
			if unescaped || bytes.IndexByte(name, '\\') < 0 {
				return
			}
			name = unescapeName(lit)
		}
	}
	var err error
	if idx != nil && len(b) <= math.MaxInt32 {
		idx.Max = maxIndex
		if err = jsonguard.CheckIndex(b, maxDepth, indexLevels, idx); err == nil {
			for _, e := range idx.Levels[0] {
				top(b[e.NS:e.NE], b[e.VS:e.VE])
			}
			if !idx.Overflow {
				m.index = &idx.Levels
			}
		}
	} else {
		err = jsonguard.CheckMembers(b, maxDepth, top)
	}
	if err != nil {
		m.index = nil
		me := &MessageError{Err: ErrSyntax}
		var se *jsonguard.SyntaxError
		if errors.As(err, &se) {
			if errors.Is(se, jsonguard.ErrTooDeep) {
				me.Err = ErrTooDeep
			} else {
				me.detail = se.Msg
				me.excerpt = excerpt(b, se.Offset)
			}
			me.Offset = int64(se.Offset)
			me.Column = se.Offset + 1
		}
		return me
	}
	i := jsonguard.SkipWS(b, 0)
	switch b[i] {
	case '{':
	case '[':
		if !allowBatch {
			return &MessageError{Err: ErrNestedBatch}
		}
		if j := jsonguard.SkipWS(b, i+1); b[j] == ']' {
			return &MessageError{Err: ErrEmptyBatch}
		}
		m.Class = Batch
		return nil
	default:
		return &MessageError{Err: ErrNotObject}
	}
	if hasID {
		switch id[0] {
		case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			m.ID = ID{raw: id}
		default:
			return memberError(ErrBadID, b, id)
		}
	}
	if hasVersion {
		if !bytes.Equal(version, version20) {
			return memberError(ErrVersion, b, version)
		}
	} else if requireVersion {
		return &MessageError{Err: ErrMissingVersion}
	}
	if hasMethod {
		if method[0] != '"' {
			return memberError(ErrBadMethod, b, method)
		}
		if hasResult || hasError {
			return &MessageError{Err: ErrAmbiguous}
		}
		if hasParams {
			switch params[0] {
			case '{', '[':
				m.Params = params
			case 'n': // null: treated as absent
			default:
				return memberError(ErrBadParams, b, params)
			}
		}
		m.Method = stringValue(method)
		if hasID {
			m.Class = Request
		} else {
			m.Class = Notification
		}
		return nil
	}
	if !hasID {
		if hasResult || hasError {
			return &MessageError{Err: ErrMissingID}
		}
		return &MessageError{Err: ErrNoMethod}
	}
	switch {
	case hasResult && hasError:
		return &MessageError{Err: ErrResultAndError}
	case hasResult:
		m.Result = result
		m.Class = Response
	case hasError:
		if errObj[0] != '{' {
			return memberError(ErrBadError, b, errObj)
		}
		m.Error = errObj
		m.Class = ErrorResponse
	default:
		return &MessageError{Err: ErrNoResult}
	}
	return nil
}

var version20 = []byte(`"2.0"`)

// memberError reports a member whose value is wrong, positioned at the
// value (v is a subslice of b).
func memberError(err error, b, v []byte) *MessageError {
	o := offsetIn(b, v)
	return &MessageError{Err: err, Offset: int64(o), Column: o + 1, excerpt: excerpt(b, o)}
}

// offsetIn returns the offset of sub within b; sub must be a subslice of b.
func offsetIn(b, sub []byte) int {
	if len(sub) == 0 {
		return 0
	}
	return cap(b) - cap(sub)
}

// stringValue returns the content of a JSON string token (one the
// classifying pass validated): the bytes between the quotes when there is
// no escape, else the unescaped value (jsonguard.AppendString, one
// allocation).
func stringValue(tok []byte) []byte {
	if len(tok) < 2 || tok[0] != '"' {
		return nil
	}
	in := tok[1 : len(tok)-1]
	if bytes.IndexByte(in, '\\') < 0 {
		return in
	}
	return jsonguard.AppendString(make([]byte, 0, len(in)), tok)
}

func unescapeName(tok []byte) []byte { return stringValue(tok) }

func excerpt(b []byte, off int) string {
	if off < 0 || off >= len(b) {
		return ""
	}
	return quoteBytes(b[off:])
}

// ClassifyBytes classifies one message held in b, without line framing
// (b is both Data and Raw, at offset 0 of line 1).
func ClassifyBytes(b []byte, opts Options) (Frame, error) {
	return Classify(ndjson.Frame{Kind: ndjson.KindLine, Data: b, Raw: b, Line: 1}, opts)
}
