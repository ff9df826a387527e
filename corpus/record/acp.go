package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// acpDriver is an ACP client (the Agent Client Protocol: JSON-RPC 2.0 over
// stdio, one message per line) scripted by the scenario: initialize,
// session/new (or session/load to resume, when the agent advertised
// loadSession), one session/prompt per prompt, answers to
// session/request_permission from the run's decisions, fs/read_text_file
// and fs/write_text_file served inside the case's workspace, session/cancel
// as the protocol interrupt, then EOF on stdin.
type acpDriver struct {
	prompts   []string
	decisions []string
	resume    string // session id to load, or ""
	cwd       string // the workspace: session cwd and the root fs/* may touch

	mu      sync.Mutex
	nextID  int
	pending map[int]string // request id -> method
	sid     string
	canLoad bool // the agent advertised agentCapabilities.loadSession
	nturn   int
	ndec    int
}

// acpProtocolVersion is the ACP version the recorder speaks.
const acpProtocolVersion = 1

func (d *acpDriver) session() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sid
}

// request sends a client request; the caller holds d.mu.
func (d *acpDriver) request(p *proc, method string, params any) error {
	id := d.nextID
	d.nextID++
	if d.pending == nil {
		d.pending = map[int]string{}
	}
	d.pending[id] = method
	return p.send(mustJSON(o("jsonrpc", "2.0", "id", id, "method", method, "params", params)))
}

func (d *acpDriver) start(p *proc) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.request(p, "initialize", o(
		"protocolVersion", acpProtocolVersion,
		"clientCapabilities", o("fs", o("readTextFile", true, "writeTextFile", true), "terminal", false),
		"clientInfo", o("name", "agentwire-record", "title", "agentwire recorder", "version", "0.1.0")))
}

// interrupt sends session/cancel, a notification: the agent answers the
// pending session/prompt with stopReason "cancelled".
func (d *acpDriver) interrupt(p *proc) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sid == "" {
		return errors.New("no session to cancel yet")
	}
	return p.send(mustJSON(o("jsonrpc", "2.0", "method", "session/cancel", "params", o("sessionId", d.sid))))
}

// nextPrompt sends the next session/prompt; the caller holds d.mu.
func (d *acpDriver) nextPrompt(p *proc) error {
	text := d.prompts[d.nturn]
	d.nturn++
	return d.request(p, "session/prompt", o("sessionId", d.sid,
		"prompt", []any{o("type", "text", "text", text)}))
}

func (d *acpDriver) line(p *proc, l []byte) error {
	var m rpcMsg
	if json.Unmarshal(l, &m) != nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case m.ID != nil && m.Method != "": // agent -> client request
		return d.answer(p, *m.ID, m.Method, m.Params)
	case m.ID != nil: // response to one of ours
		var id int
		if json.Unmarshal(*m.ID, &id) != nil {
			return nil
		}
		method, ok := d.pending[id]
		if !ok {
			return nil
		}
		delete(d.pending, id)
		return d.response(p, method, m)
	}
	return nil
}

// response handles the answer to the client's request method.
func (d *acpDriver) response(p *proc, method string, m rpcMsg) error {
	if len(m.Error) > 0 && method != "session/prompt" {
		p.finish()
		return fmt.Errorf("%s failed: %s", method, m.Error)
	}
	switch method {
	case "initialize":
		var r struct {
			AgentCapabilities struct {
				LoadSession bool `json:"loadSession"`
			} `json:"agentCapabilities"`
		}
		_ = json.Unmarshal(m.Result, &r)
		d.canLoad = r.AgentCapabilities.LoadSession
		if d.resume != "" {
			if !d.canLoad {
				p.finish()
				return errors.New("resume: the agent does not advertise loadSession")
			}
			d.sid = d.resume
			return d.request(p, "session/load", o("sessionId", d.resume, "cwd", d.cwd, "mcpServers", []any{}))
		}
		return d.request(p, "session/new", o("cwd", d.cwd, "mcpServers", []any{}))
	case "session/new":
		var r struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(m.Result, &r)
		if r.SessionID == "" {
			p.finish()
			return errors.New("session/new: no sessionId in result")
		}
		d.sid = r.SessionID
		return d.nextPrompt(p)
	case "session/load":
		return d.nextPrompt(p)
	case "session/prompt":
		// A stopReason or a JSON-RPC error: the turn is over either way.
		if d.nturn < len(d.prompts) && len(m.Error) == 0 {
			return d.nextPrompt(p)
		}
		p.finishAfter(settle)
	}
	return nil
}

// acpDecisions are the decisions a scenario may script for
// session/request_permission: the kind of the option to select, or
// "cancel" for the cancelled outcome.
var acpDecisions = map[string]bool{
	"allow_once": true, "allow_always": true, "reject_once": true, "reject_always": true, "cancel": true,
}

// answer answers an agent-to-client request; the caller holds d.mu.
func (d *acpDriver) answer(p *proc, id json.RawMessage, method string, params json.RawMessage) error {
	result := func(v any) error { return p.send(mustJSON(o("jsonrpc", "2.0", "id", id, "result", v))) }
	fail := func(code int, msg string) error {
		return p.send(mustJSON(o("jsonrpc", "2.0", "id", id, "error", o("code", code, "message", msg))))
	}
	switch method {
	case "session/request_permission":
		dec := "reject_once"
		if d.ndec < len(d.decisions) {
			dec = d.decisions[d.ndec]
		}
		d.ndec++
		if dec == "cancel" {
			return result(o("outcome", o("outcome", "cancelled")))
		}
		var r struct {
			Options []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		_ = json.Unmarshal(params, &r)
		for _, opt := range r.Options {
			if opt.Kind == dec {
				return result(o("outcome", o("outcome", "selected", "optionId", opt.OptionID)))
			}
		}
		if err := result(o("outcome", o("outcome", "cancelled"))); err != nil {
			return err
		}
		return fmt.Errorf("session/request_permission: no option of kind %s", dec)
	case "fs/read_text_file":
		var r struct {
			Path  string `json:"path"`
			Line  *int   `json:"line"`
			Limit *int   `json:"limit"`
		}
		_ = json.Unmarshal(params, &r)
		path, err := d.inWorkspace(r.Path)
		if err != nil {
			return fail(-32602, err.Error())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fail(-32002, "agentwire recorder: "+strings.ReplaceAll(err.Error(), d.cwd, "<workspace>"))
		}
		return result(o("content", lineRange(string(b), r.Line, r.Limit)))
	case "fs/write_text_file":
		var r struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		_ = json.Unmarshal(params, &r)
		path, err := d.inWorkspace(r.Path)
		if err != nil {
			return fail(-32602, err.Error())
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fail(-32603, "agentwire recorder: cannot create the directory")
		}
		if err := os.WriteFile(path, []byte(r.Content), 0o644); err != nil {
			return fail(-32603, "agentwire recorder: cannot write the file")
		}
		return result(nil)
	}
	return fail(-32601, "agentwire recorder: unsupported request "+method)
}

// inWorkspace returns path cleaned when it is absolute and inside the
// workspace, else an error for the agent.
func (d *acpDriver) inWorkspace(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", errors.New("agentwire recorder: path must be absolute")
	}
	p := filepath.Clean(path)
	if p != d.cwd && !strings.HasPrefix(p, d.cwd+string(filepath.Separator)) {
		return "", errors.New("agentwire recorder: path outside the workspace")
	}
	return p, nil
}

// lineRange returns the lines of s from the 1-based line (default 1), at
// most limit of them (default all), as fs/read_text_file defines them.
func lineRange(s string, line, limit *int) string {
	if line == nil && limit == nil {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	from := 0
	if line != nil && *line > 1 {
		from = min(*line-1, len(lines))
	}
	to := len(lines)
	if limit != nil && *limit >= 0 {
		to = min(from+*limit, len(lines))
	}
	return strings.Join(lines[from:to], "")
}
