package codex

import (
	"testing"

	"github.com/agentwire/agentwire/internal/parsertest"
)

// TestCodecDisplayID: see parsertest.CheckCodecDisplayID.
func TestCodecDisplayID(t *testing.T) {
	parsertest.CheckCodecDisplayID(t, Codec)
}
