package record

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// appServerDriver drives a codex app-server JSON-RPC session over stdio:
// initialize, initialized, thread/start (or thread/resume), one turn/start
// per prompt, approval answers, turn/interrupt, then EOF on stdin.
type appServerDriver struct {
	prompts      []string
	decisions    []string
	resume       string          // thread id to resume, or ""
	threadParams json.RawMessage // merged into thread/start and thread/resume params

	mu      sync.Mutex
	nextID  int
	pending map[int]string // request id -> method
	thread  string
	turn    string
	nturn   int
	ndec    int
	ended   bool // the current turn has ended
}

func (d *appServerDriver) session() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.thread
}

// request sends a client request; the caller holds d.mu.
func (d *appServerDriver) request(p *proc, method string, params any) error {
	id := d.nextID
	d.nextID++
	if d.pending == nil {
		d.pending = map[int]string{}
	}
	d.pending[id] = method
	return p.send(mustJSON(o("method", method, "id", id, "params", params)))
}

func (d *appServerDriver) start(p *proc) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.request(p, "initialize", o("clientInfo",
		o("name", "agentwire_record", "title", "agentwire recorder", "version", "0.1.0")))
}

func (d *appServerDriver) interrupt(p *proc) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.thread == "" || d.turn == "" {
		return fmt.Errorf("no turn to interrupt yet")
	}
	return d.request(p, "turn/interrupt", o("threadId", d.thread, "turnId", d.turn))
}

// params merges the scenario's thread params into base.
func (d *appServerDriver) params(base obj) (json.RawMessage, error) {
	b := mustJSON(base)
	if len(d.threadParams) == 0 {
		return b, nil
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(d.threadParams, &m); err != nil {
		return nil, fmt.Errorf("thread_params: %w", err)
	}
	return json.Marshal(m)
}

func (d *appServerDriver) nextTurn(p *proc) error {
	text := d.prompts[d.nturn]
	d.nturn++
	d.ended = false
	return d.request(p, "turn/start", o("threadId", d.thread,
		"input", []any{o("type", "text", "text", text)}))
}

type rpcMsg struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Result json.RawMessage  `json:"result"`
	Error  json.RawMessage  `json:"error"`
}

func (d *appServerDriver) line(p *proc, l []byte) error {
	var m rpcMsg
	if json.Unmarshal(l, &m) != nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case m.ID != nil && m.Method != "": // server -> client request
		return d.answer(p, *m.ID, m.Method)
	case m.ID != nil: // response to one of ours
		var id int
		if json.Unmarshal(*m.ID, &id) != nil {
			return nil
		}
		method := d.pending[id]
		delete(d.pending, id)
		if len(m.Error) > 0 {
			if method == "turn/interrupt" {
				return nil
			}
			p.finish()
			return fmt.Errorf("%s failed: %s", method, m.Error)
		}
		switch method {
		case "initialize":
			if err := p.send(mustJSON(o("method", "initialized"))); err != nil {
				return err
			}
			if d.resume != "" {
				params, err := d.params(o("threadId", d.resume))
				if err != nil {
					return err
				}
				return d.request(p, "thread/resume", params)
			}
			params, err := d.params(o())
			if err != nil {
				return err
			}
			return d.request(p, "thread/start", params)
		case "thread/start", "thread/resume":
			var r struct {
				Thread struct {
					ID string `json:"id"`
				} `json:"thread"`
			}
			_ = json.Unmarshal(m.Result, &r)
			d.thread = r.Thread.ID
			if d.thread == "" {
				p.finish()
				return fmt.Errorf("%s: no thread id in result", method)
			}
			return d.nextTurn(p)
		case "turn/start":
			var r struct {
				Turn struct {
					ID string `json:"id"`
				} `json:"turn"`
			}
			_ = json.Unmarshal(m.Result, &r)
			if r.Turn.ID != "" {
				d.turn = r.Turn.ID
			}
		}
	case m.Method == "turn/started":
		var r struct {
			Turn struct {
				ID string `json:"id"`
			} `json:"turn"`
		}
		_ = json.Unmarshal(m.Params, &r)
		if r.Turn.ID != "" {
			d.turn = r.Turn.ID
		}
	case m.Method == "turn/completed" || m.Method == "codex/event/task_complete" || m.Method == "codex/event/turn_aborted":
		// Older servers (0.58) send no v2 turn/completed: the legacy
		// task_complete / turn_aborted events end the turn there. Newer
		// ones may send both; the first one counts.
		if d.ended || d.nturn == 0 {
			return nil
		}
		d.ended = true
		if d.nturn < len(d.prompts) {
			return d.nextTurn(p)
		}
		p.finishAfter(settle)
	}
	return nil
}

// settle is how long the drivers wait after the last terminal event before
// closing stdin.
const settle = time.Second

// legacyDecision maps v2 decisions to the v1 ReviewDecision enum.
var legacyDecision = map[string]string{
	"accept": "approved", "acceptForSession": "approved_for_session",
	"decline": "denied", "cancel": "abort",
}

func (d *appServerDriver) answer(p *proc, id json.RawMessage, method string) error {
	switch method {
	case "item/commandExecution/requestApproval", "item/fileChange/requestApproval",
		"execCommandApproval", "applyPatchApproval":
		dec := "decline"
		if d.ndec < len(d.decisions) {
			dec = d.decisions[d.ndec]
		}
		d.ndec++
		if method == "execCommandApproval" || method == "applyPatchApproval" {
			dec = legacyDecision[dec]
		}
		return p.send(mustJSON(o("id", id, "result", o("decision", dec))))
	}
	return p.send(mustJSON(o("id", id, "error",
		o("code", -32601, "message", "agentwire recorder: unsupported request "+method))))
}
