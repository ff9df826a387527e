package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/agentwire/agentwire/driver"

	"github.com/agentwire/agentwire/ndjson"
)

// The pairing rules below are a second decode of stdout, run after the
// parse; they move into each parser's own pass (issue 16).

type wireLine struct {
	off  int64
	line int
	data []byte
}

func jsonLines(b []byte) []wireLine {
	var out []wireLine
	r := ndjson.NewReader(bytes.NewReader(b), ndjson.Options{})
	for {
		f, err := r.Next()
		if err == io.EOF || err != nil && !isLineError(err) {
			return out
		}
		if err != nil || f.Kind != ndjson.KindLine {
			continue
		}
		out = append(out, wireLine{off: f.Offset, line: f.Line, data: append([]byte(nil), f.Data...)})
	}
}

func isLineError(err error) bool {
	_, ok := err.(*ndjson.LineError)
	return ok
}

func unpaired(l wireLine, format string, args ...any) Finding {
	return Finding{Clause: Unpaired, Message: fmt.Sprintf(format, args...), Offset: l.off, Line: l.line}
}

func codexWire(lines []wireLine) []Finding {
	var out []Finding
	type ev struct {
		Type string `json:"type"`
		Item *struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"item"`
	}
	var evs []ev
	var at []wireLine
	for _, l := range lines {
		var e ev
		if json.Unmarshal(l.data, &e) != nil || e.Type == "" {
			continue
		}
		evs, at = append(evs, e), append(at, l)
	}
	thread, turn, terminal := -1, -1, -1
	for i, e := range evs {
		switch e.Type {
		case "thread.started":
			if thread < 0 {
				thread = i
			}
		case "turn.started":
			if turn < 0 {
				turn = i
			}
		case "turn.completed", "turn.failed":
			if terminal < 0 {
				terminal = i
			}
		}
	}
	for i, e := range evs {
		if e.Type == "error" || e.Type == "item.completed" && e.Item != nil && e.Item.Type == "error" {
			continue // warnings may precede the session
		}
		if thread < 0 || i < thread {
			out = append(out, unpaired(at[i], "%s before any thread.started: the session announcement is missing", e.Type))
		}
		break
	}
	if terminal >= 0 && (turn < 0 || turn > terminal) {
		out = append(out, unpaired(at[terminal], "%s without a turn.started before it", evs[terminal].Type))
	}
	if terminal >= 0 {
		done := map[string]bool{}
		for _, e := range evs {
			if e.Type == "item.completed" && e.Item != nil {
				done[e.Item.ID] = true
			}
		}
		for i, e := range evs[:terminal] {
			if e.Type == "item.started" && e.Item != nil && !done[e.Item.ID] {
				out = append(out, unpaired(at[i], "item %s (%s) started but never completed, though the turn ended", e.Item.ID, e.Item.Type))
			}
		}
	}
	return out
}

func claudeWire(lines []wireLine) []Finding {
	var out []Finding
	type block struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		ToolUseID string `json:"tool_use_id"`
	}
	type ev struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
		Message *struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
		Event *struct {
			Type  string `json:"type"`
			Index *int   `json:"index"`
		} `json:"event"`
		Parent *string `json:"parent_tool_use_id"`
		IsErr  bool    `json:"is_error"`
	}
	var evs []ev
	var at []wireLine
	for _, l := range lines {
		var e ev
		if json.Unmarshal(l.data, &e) != nil || e.Type == "" {
			continue
		}
		evs, at = append(evs, e), append(at, l)
	}
	control := func(t string) bool {
		return t == "control_request" || t == "control_response" || t == "control_cancel_request" || t == "keep_alive"
	}
	for i, e := range evs {
		if control(e.Type) {
			continue
		}
		if e.Type != "system" || e.Subtype != "init" {
			out = append(out, unpaired(at[i], "%s line before the system init line: the session announcement is missing", e.Type))
		}
		break
	}
	// A successful result ends a turn in which every tool call got its
	// result and every streamed message and block was closed.
	last := -1
	for i, e := range evs {
		if e.Type == "result" && e.Subtype == "success" && !e.IsErr && e.Parent == nil {
			last = i
		}
	}
	if last < 0 {
		return out
	}
	results := map[string]bool{}
	for _, e := range evs {
		if e.Type == "user" && e.Message != nil {
			var bs []block
			if json.Unmarshal(e.Message.Content, &bs) == nil {
				for _, b := range bs {
					if b.Type == "tool_result" {
						results[b.ToolUseID] = true
					}
				}
			}
		}
	}
	type blockKey struct {
		scope string
		index int
	}
	open := map[string]int{} // scope -> line index of an open message_start
	openBlocks := map[blockKey]int{}
	seen := map[string]bool{}
	for i, e := range evs[:last] {
		scope := ""
		if e.Parent != nil {
			scope = *e.Parent
		}
		switch {
		case e.Type == "assistant" && e.Message != nil:
			var bs []block
			if json.Unmarshal(e.Message.Content, &bs) == nil {
				for _, b := range bs {
					if b.Type == "tool_use" && b.ID != "" && !results[b.ID] && !seen[b.ID] {
						seen[b.ID] = true
						out = append(out, unpaired(at[i], "tool_use %s has no tool_result, though the turn succeeded", b.ID))
					}
				}
			}
		case e.Type == "stream_event" && e.Event != nil:
			switch e.Event.Type {
			case "message_start":
				open[scope] = i
			case "message_stop":
				if _, ok := open[scope]; !ok {
					out = append(out, unpaired(at[i], "message_stop without its message_start"))
				}
				delete(open, scope)
			case "content_block_start":
				if e.Event.Index != nil {
					openBlocks[blockKey{scope, *e.Event.Index}] = i
				}
			case "content_block_stop":
				if e.Event.Index != nil {
					k := blockKey{scope, *e.Event.Index}
					if _, ok := openBlocks[k]; !ok {
						out = append(out, unpaired(at[i], "content_block_stop of block %d without its content_block_start", k.index))
					}
					delete(openBlocks, k)
				}
			}
		}
	}
	var left []int
	for _, i := range open {
		left = append(left, i)
	}
	for _, i := range openBlocks {
		left = append(left, i)
	}
	slices.Sort(left)
	for _, i := range left {
		out = append(out, unpaired(at[i], "%s never stopped, though the turn succeeded", evs[i].Event.Type))
	}
	return out
}

func appserverWire(lines, client []wireLine) []Finding {
	var out []Finding
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params *struct {
			Item *struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			} `json:"item"`
			Turn *struct {
				ID string `json:"id"`
			} `json:"turn"`
		} `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	var ms []msg
	var at []wireLine
	for _, l := range lines {
		var m msg
		if json.Unmarshal(l.data, &m) != nil {
			continue
		}
		ms, at = append(ms, m), append(at, l)
	}
	terminal := -1
	for i, m := range ms {
		if m.Method == "turn/completed" || m.Method == "codex/event/task_complete" {
			terminal = i
		}
	}
	// Every turn/completed ends a turn that was started.
	started := map[string]bool{}
	for i, m := range ms {
		if m.Params == nil || m.Params.Turn == nil {
			continue
		}
		switch m.Method {
		case "turn/started":
			started[m.Params.Turn.ID] = true
		case "turn/completed":
			if !started[m.Params.Turn.ID] {
				out = append(out, unpaired(at[i], "turn/completed of turn %s without its turn/started", m.Params.Turn.ID))
			}
		}
	}
	if terminal < 0 {
		return out
	}
	// Tool items started before the terminal are completed (message and
	// reasoning items of a retried stream are abandoned: not checked).
	done := map[string]bool{}
	for _, m := range ms {
		if m.Method == "item/completed" && m.Params != nil && m.Params.Item != nil {
			done[m.Params.Item.ID] = true
		}
	}
	for i, m := range ms[:terminal] {
		if m.Method != "item/started" || m.Params == nil || m.Params.Item == nil {
			continue
		}
		if t := m.Params.Item.Type; t == "agentMessage" || t == "reasoning" || t == "userMessage" {
			continue
		}
		if !done[m.Params.Item.ID] {
			out = append(out, unpaired(at[i], "item %s (%s) started but never completed, though the turn ended", m.Params.Item.ID, m.Params.Item.Type))
		}
	}
	// Every client request sent before the terminal's turn ended is answered.
	if len(client) > 0 {
		answered := map[string]bool{}
		for _, m := range ms {
			if m.Method == "" && len(m.ID) > 0 && (m.Result != nil || m.Error != nil) {
				answered[string(m.ID)] = true
			}
		}
		for _, l := range client {
			var m msg
			if json.Unmarshal(l.data, &m) != nil || m.Method == "" || len(m.ID) == 0 || m.Method == "turn/interrupt" {
				continue
			}
			if !answered[string(m.ID)] && (m.Method == "initialize" || m.Method == "thread/start" || m.Method == "thread/resume" || m.Method == "turn/start") {
				out = append(out, unpaired(wireLine{off: -1}, "client request %s (id %s, stdin line %d) has no response in stdout", m.Method, m.ID, l.line))
			}
		}
	}
	return out
}

// stdoutOf returns the stdout a parse kept.
func stdoutOf(resp driver.Response) []byte {
	if resp.RawStreams == nil {
		return nil
	}
	return []byte(resp.RawStreams.Stdout)
}
