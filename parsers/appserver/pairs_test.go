package appserver

import (
	"strings"
	"testing"

	"github.com/agentwire/agentwire/adaptertest"
)

// TestUnpaired: Options.Unpaired reports what a capture with a line
// removed lacks, and nothing for a whole one.
func TestUnpaired(t *testing.T) {
	stdin := `{"id":3,"method":"turn/start","params":{"threadId":"t"}}` + "\n"
	start := `{"method":"turn/started","params":{"threadId":"t","turn":{"id":"u","status":"inProgress"}}}`
	item := `{"method":"item/started","params":{"threadId":"t","turnId":"u","item":{"type":"commandExecution","id":"c","command":"ls","status":"inProgress"}}}`
	done := `{"method":"item/completed","params":{"threadId":"t","turnId":"u","item":{"type":"commandExecution","id":"c","command":"ls","status":"completed"}}}`
	resp := `{"id":3,"result":{"turn":{"id":"u"}}}`
	end := `{"method":"turn/completed","params":{"threadId":"t","turn":{"id":"u","status":"completed"}}}`
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"whole", []string{resp, start, item, done, end}, nil},
		{"no turn/started", []string{resp, item, done, end}, []string{"turn/completed of turn u without its turn/started"}},
		{"no item/completed", []string{resp, start, item, end}, []string{"item c (commandExecution) started but never completed"}},
		{"no response", []string{start, item, done, end}, []string{"client request turn/start (id 3, stdin line 1) has no response"}},
		{"no terminal", []string{start, item}, nil},
	} {
		var got []string
		opts := Options{Unpaired: func(_ int64, _ int, msg string) { got = append(got, msg) }}
		_, err := ParseSession(strings.NewReader(stdin), strings.NewReader(strings.Join(tc.lines, "\n")+"\n"), nil, &adaptertest.RecordingSink{}, opts, Outcome{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: Unpaired %q, want %q", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], tc.want[i]) {
				t.Errorf("%s: Unpaired %q, want %q", tc.name, got[i], tc.want[i])
			}
		}
	}
}
