package driver

import (
	"errors"
	"testing"
)

func TestOutcomeClean(t *testing.T) {
	if !(Outcome{}).Clean() {
		t.Error("the zero Outcome is not clean")
	}
	for _, o := range []Outcome{{ExitCode: 1}, {Signal: "SIGINT"}, {TimedOut: true}, {Cancelled: true}, {Err: errors.New("x")}} {
		if o.Clean() {
			t.Errorf("%+v is clean", o)
		}
	}
}
