package claude

import (
	"testing"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/parsertest"
	"github.com/agentwire/agentwire/internal/sessioncodec"
)

// TestCodecDisplayID: see parsertest.CheckCodecDisplayID.
func TestCodecDisplayID(t *testing.T) {
	parsertest.CheckCodecDisplayID(t, Codec)
	if !sessioncodec.Accepts(Codec, &driver.SessionState{ResumeID: "s-1"}) {
		t.Error("a state without DisplayID does not round-trip: its checkpoint would be invalid")
	}
}
