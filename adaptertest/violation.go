package adaptertest

import (
	"fmt"
	"strings"
)

// Violation is one breach of the contract found by a validator.
type Violation struct {
	// Clause is the stable clause ID, such as "EVT-03" (see Clauses).
	Clause string `json:"clause"`
	// Index is the position of the offending value in the validator's
	// input: a payload for CheckStream, an event for CheckRun (a transcript
	// item for the TRN clauses of Response.Transcript). -1 when the breach
	// belongs to the whole input, such as a missing terminal.
	Index int `json:"index"`
	// Message says what is wrong, naming ids and kinds; it never quotes
	// provider text at length.
	Message string `json:"message"`
}

// String renders a violation as "EVT-03 [#4]: message".
func (v Violation) String() string {
	if v.Index < 0 {
		return v.Clause + ": " + v.Message
	}
	return fmt.Sprintf("%s [#%d]: %s", v.Clause, v.Index, v.Message)
}

// Violations is a list of violations with helpers for tests and tools.
type Violations []Violation

// Clauses returns the distinct clause IDs in order of first appearance.
func (vs Violations) Clauses() []string {
	var ids []string
	seen := map[string]bool{}
	for _, v := range vs {
		if !seen[v.Clause] {
			seen[v.Clause] = true
			ids = append(ids, v.Clause)
		}
	}
	return ids
}

// Has reports whether any violation has the clause id.
func (vs Violations) Has(clause string) bool {
	for _, v := range vs {
		if v.Clause == clause {
			return true
		}
	}
	return false
}

// String renders one violation per line.
func (vs Violations) String() string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// collector gathers violations. With placing on it also records, for each
// violation, the Place of its emission: at, which the Checker sets before
// it judges an emission (and before a finding about an earlier one), or
// Place{Index: -1} for a violation of the input as a whole.
type collector struct {
	out     Violations
	placing bool
	at      Place
	places  []Place
}

func (c *collector) add(clause string, index int, format string, args ...any) {
	c.out = append(c.out, Violation{Clause: clause, Index: index, Message: fmt.Sprintf(format, args...)})
	if c.placing {
		at := c.at
		if index < 0 {
			at = Place{Index: -1}
		}
		c.places = append(c.places, at)
	}
}

// placed returns the violations with their places.
func (c *collector) placed() []Placed {
	var out []Placed
	for i, v := range c.out {
		out = append(out, Placed{Violation: v, Place: c.places[i]})
	}
	return out
}
