package jsonrpc_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/agentwire/agentwire/jsonrpc"
)

func ExampleReader() {
	stdout := strings.NewReader(`{"id":1,"result":{"thread":{"id":"thr_1"}}}
{"method":"item/agentMessage/delta","params":{"delta":"Hi"}}
[SandboxDebug] a log line on stdout
{"id":0,"method":"item/commandExecution/requestApproval","params":{"command":"ls"}}
`)
	var raw bytes.Buffer
	r := jsonrpc.NewReader(stdout, jsonrpc.Options{Tee: &raw})
	for f, err := range r.All() {
		if err != nil {
			fmt.Println("line", f.Line, "skipped:", f.Class)
			continue
		}
		fmt.Println(f.Class, string(f.Method), f.ID)
	}
	fmt.Println(raw.Len(), "bytes teed")
	// Output:
	// response  1
	// notification item/agentMessage/delta none
	// line 3 skipped: invalid
	// request item/commandExecution/requestApproval 0
	// 225 bytes teed
}

func ExampleEncoder() {
	e := jsonrpc.NewEncoder(os.Stdout)
	e.Request(jsonrpc.IntID(1), "turn/start", map[string]any{"threadId": "thr_1", "input": []any{map[string]string{"type": "text", "text": "hi"}}})
	// Answer an approval request, echoing its id token exactly.
	id, _ := jsonrpc.ParseID([]byte("0"))
	e.Respond(id, map[string]string{"decision": "accept"})
	// Output:
	// {"id":1,"method":"turn/start","params":{"input":[{"text":"hi","type":"text"}],"threadId":"thr_1"}}
	// {"id":0,"result":{"decision":"accept"}}
}

func ExampleDecoder() {
	d := jsonrpc.NewDecoder(jsonrpc.Options{}, func(f jsonrpc.Frame, err error) error {
		fmt.Println(f.Class, string(f.Method), err)
		return nil
	})
	d.Write([]byte(`{"method":"turn/sta`))
	d.Write([]byte("rted\"}\n{\"id\":true}\n"))
	d.Close()
	// Output:
	// notification turn/started <nil>
	// invalid  jsonrpc: line 2 (offset 32): "id" is not a string, number or null: "true}"
}
