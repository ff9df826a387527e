package sse

// The fast path of the hot loop: nearly every model-API event is one block
// of the same layout, an optional event line, one data line and the blank
// line,
//
//	["event:" [" "] name EOL] "data:" [" "] data EOL EOL
//
// where EOL is LF or CRLF and name and data hold neither CR nor LF.
// scanBlock (block_amd64.s, block_generic.go) matches that layout at the
// start of a block in one call, where the general loop makes a call per
// line to find its end and then tells its field apart. Anything else (a
// comment, an id or retry field, several data lines, a lone CR, a field
// without a colon) is left to the general loop, which gives the same
// result for the layout too; the tests hold the two to that.

// Results of scanBlock.
const (
	blockOther = iota // b does not start with the layout
	blockMatch        // b starts with a whole block of the layout, described in the block
	blockShort        // b ends before it could tell
)

// block is where scanBlock found the parts of a block: indices into the
// bytes it was given.
type block struct {
	ev0, ev1 int // the event name, when lines is 3
	d0, d1   int // the data value
	end      int // the first byte after the blank line
	lines    int // 3 with an event line, else 2
}

// fastBackoff is how many blocks the machine decodes with the general loop
// after a block whose layout scanBlock did not match, so that a stream of
// other layouts (an id on every event, several data lines) does not pay for
// a failed match on each.
const fastBackoff = 16
