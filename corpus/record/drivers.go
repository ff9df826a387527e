package record

import (
	"encoding/json"
	"fmt"
	"sync"
)

// execDriver drives a one-shot JSON-lines CLI (codex exec --json, gemini
// -o stream-json): stdin is closed at once, and the session id is member
// key of the first line whose "type" is typ.
type execDriver struct {
	typ, key string
	sid      string
}

// codexExec and geminiStream are the execDrivers of codex exec --json
// (thread.started's thread_id) and gemini -o stream-json (init's
// session_id, what --resume takes).
func codexExec() *execDriver    { return &execDriver{typ: "thread.started", key: "thread_id"} }
func geminiStream() *execDriver { return &execDriver{typ: "init", key: "session_id"} }

func (d *execDriver) start(p *proc) error { p.closeStdin(); return nil }
func (d *execDriver) interrupt(*proc) error {
	return fmt.Errorf("a one-shot %s stream has no protocol interrupt", d.typ)
}
func (d *execDriver) session() string { return d.sid }
func (d *execDriver) line(_ *proc, l []byte) error {
	if d.sid != "" {
		return nil
	}
	var v map[string]json.RawMessage
	var typ, id string
	if json.Unmarshal(l, &v) == nil && json.Unmarshal(v["type"], &typ) == nil && typ == d.typ &&
		json.Unmarshal(v[d.key], &id) == nil {
		d.sid = id
	}
	return nil
}

// claudeDriver drives claude -p --output-format stream-json. With stream
// input it writes the user messages and answers the control protocol;
// otherwise stdin is closed at once.
type claudeDriver struct {
	stream    bool
	prompts   []string // first prompt, then further turns
	decisions []string

	mu       sync.Mutex
	sid      string
	nreq     int
	nturn    int
	ndec     int
	initSent bool
}

func (d *claudeDriver) session() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sid
}

func (d *claudeDriver) nextID() string {
	d.nreq++
	return fmt.Sprintf("req_%d_agentwire", d.nreq)
}

func (d *claudeDriver) start(p *proc) error {
	if !d.stream {
		p.closeStdin()
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.initSent = true
	return p.send(mustJSON(o("type", "control_request", "request_id", d.nextID(),
		"request", o("subtype", "initialize", "hooks", nil))))
}

func (d *claudeDriver) userMessage(p *proc) error {
	text := d.prompts[d.nturn]
	d.nturn++
	return p.send(mustJSON(o("type", "user", "session_id", "",
		"message", o("role", "user", "content", text), "parent_tool_use_id", nil)))
}

func (d *claudeDriver) interrupt(p *proc) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return p.send(mustJSON(o("type", "control_request", "request_id", d.nextID(),
		"request", o("subtype", "interrupt"))))
}

func (d *claudeDriver) line(p *proc, l []byte) error {
	var v struct {
		Type      string          `json:"type"`
		SessionID string          `json:"session_id"`
		RequestID string          `json:"request_id"`
		Request   json.RawMessage `json:"request"`
		Response  struct {
			RequestID string `json:"request_id"`
		} `json:"response"`
	}
	if json.Unmarshal(l, &v) != nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sid == "" && v.SessionID != "" {
		d.sid = v.SessionID
	}
	if !d.stream {
		return nil
	}
	switch v.Type {
	case "control_response":
		// The answer to initialize: now send the first user message.
		if v.Response.RequestID == "req_1_agentwire" && d.nturn == 0 {
			return d.userMessage(p)
		}
	case "control_request":
		var r struct {
			Subtype string          `json:"subtype"`
			Input   json.RawMessage `json:"input"`
		}
		_ = json.Unmarshal(v.Request, &r)
		if r.Subtype != "can_use_tool" {
			return p.send(mustJSON(o("type", "control_response", "response", o("subtype", "error",
				"request_id", v.RequestID, "error", "agentwire recorder: unsupported "+r.Subtype))))
		}
		dec := "deny"
		if d.ndec < len(d.decisions) {
			dec = d.decisions[d.ndec]
		}
		d.ndec++
		var resp obj
		if dec == "allow" {
			in := r.Input
			if len(in) == 0 {
				in = json.RawMessage("{}")
			}
			resp = o("behavior", "allow", "updatedInput", in)
		} else {
			resp = o("behavior", "deny", "message", "Denied by the agentwire recorder")
		}
		return p.send(mustJSON(o("type", "control_response", "response",
			o("subtype", "success", "request_id", v.RequestID, "response", resp))))
	case "result":
		if d.nturn < len(d.prompts) {
			return d.userMessage(p)
		}
		p.finishAfter(settle)
	}
	return nil
}
