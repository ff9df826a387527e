package sse_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agentwire/agentwire/sse"
)

func ExampleReader() {
	stream := "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" +
		": ping\n\n" +
		"data: {\"delta\":\"Hel\"}\ndata: {\"delta\":\"lo\"}\n\n" +
		"data: [DONE]" // no blank line: delivered, flagged incomplete
	r := sse.NewReader(strings.NewReader(stream), sse.Options{})
	for {
		f, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Printf("line %d offset %d event=%q data=%q incomplete=%v\n", f.Line, f.Offset, f.Event, f.Data, f.Incomplete)
	}
	// Output:
	// line 1 offset 0 event="message_start" data="{\"type\":\"message_start\"}" incomplete=false
	// line 6 offset 61 event="" data="{\"delta\":\"Hel\"}\n{\"delta\":\"lo\"}" incomplete=false
	// line 9 offset 105 event="" data="[DONE]" incomplete=true
}

func ExampleReader_All() {
	body := io.NopCloser(strings.NewReader("data: 1\n\ndata: 2\n\ndata: 3\n\n"))
	r := sse.NewReader(body, sse.Options{})
	for f, err := range r.All() {
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Printf("%s\n", f.Data)
		if string(f.Data) == "2" {
			break // closes body
		}
	}
	// Output:
	// 1
	// 2
}

// With Spans set, every byte of the input is in exactly one frame.
func ExampleOptions_spans() {
	in := "\xEF\xBB\xBF: keep-alive\r\n\r\nevent: ping\r\n\r\ndata: hi\r\n\r\n"
	r := sse.NewReader(strings.NewReader(in), sse.Options{Spans: true})
	var all []byte
	for f, err := range r.All() {
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-7s %q\n", f.Kind, f.Raw)
		all = append(all, f.Raw...)
	}
	fmt.Println(bytes.Equal(all, []byte(in)))
	// Output:
	// bom     "\ufeff"
	// comment ": keep-alive\r\n\r\n"
	// nodata  "event: ping\r\n\r\n"
	// event   "data: hi\r\n\r\n"
	// true
}

func ExampleOptions_maxEventSize() {
	in := "data: " + strings.Repeat("x", 100) + "\n\ndata: small\n\n"
	r := sse.NewReader(strings.NewReader(in), sse.Options{MaxEventSize: 64})
	for f, err := range r.All() {
		if err != nil {
			fmt.Println(err, sse.IsRecoverable(err))
			continue
		}
		fmt.Printf("%s\n", f.Data)
	}
	// Output:
	// sse: line 1 (offset 0): event too large (limit 64 bytes) starting "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... true
	// small
}

func ExampleDecoder() {
	d := sse.NewDecoder(sse.Options{}, func(f *sse.Frame, err error) error {
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s\n", f.Event, f.Data)
		return nil
	})
	// A CRLF split across two writes is one line ending.
	d.Write([]byte("event: delta\r\ndata: a\r"))
	d.Write([]byte("\n\r\nevent: stop\r\ndata: b\r\n"))
	d.Close()
	// Output:
	// delta: a
	// stop: b
}

func ExampleWriter() {
	w := sse.NewWriter(os.Stdout) // an http.ResponseWriter in a server
	w.WriteEvent(sse.Event{Event: "response.created", ID: "1", Data: []byte(`{"type":"response.created"}`)})
	w.WriteComment("keep-alive")
	w.WriteEvent(sse.Event{Data: []byte("two\nlines")})
	// Output:
	// event: response.created
	// id: 1
	// data: {"type":"response.created"}
	//
	// : keep-alive
	//
	// data: two
	// data: lines
}
