package codex

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/ndjson"
)

// phase is the item event: started, updated or completed.
type phase uint8

const (
	phaseStarted phase = iota + 1
	phaseUpdated
	phaseCompleted
)

func (ph phase) event() string {
	switch ph {
	case phaseStarted:
		return evItemStarted
	case phaseUpdated:
		return evItemUpdated
	}
	return evItemCompleted
}

// completedItem reports whether noteItem recorded an item.completed of
// item id.
func (p *Parser) completedItem(id string) bool {
	if id == p.curID {
		return p.cur.completed
	}
	return p.items[id].completed
}

// counts is the Parser as the Emitter's record of lifecycle counts
// (emit.Counts): every lifecycle the parser opens has an item's id, in
// scope "", so the count goes with the item's state (itemState.fam and
// n). The Emitter asks for the count of the item being handled, p.cur,
// nearly always; an id with lifecycles of more than one family (an item
// whose type changed), or a count past uint32, keeps it in p.otherCounts,
// which takes precedence.
type counts Parser

// countKey is a family and id of Parser.otherCounts.
type countKey struct {
	fam emit.Family
	id  string
}

func (c *counts) Count(f emit.Family, id string) int {
	p := (*Parser)(c)
	if p.otherCounts != nil {
		if n, ok := p.otherCounts[countKey{f, id}]; ok {
			return n
		}
	}
	s := p.cur
	if id != p.curID {
		s = p.items[id]
	}
	if s.fam == f {
		return int(s.n)
	}
	return 0
}

func (c *counts) SetCount(f emit.Family, id string, n int) {
	p := (*Parser)(c)
	s := &p.cur
	var other itemState
	if id != p.curID {
		other = p.items[id]
		s = &other
	}
	if (s.fam == 0 || s.fam == f) && n <= math.MaxUint32 {
		s.fam, s.n = f, uint32(n)
	} else {
		if p.otherCounts == nil {
			p.otherCounts = map[countKey]int{}
		}
		p.otherCounts[countKey{f, id}] = n
	}
	if s == &other {
		p.items[id] = other
	}
}

// knownItem reports whether the parser maps item type t itself.
func knownItem(t string) bool { return slices.Contains(itemTypes[:], t) }

// noteItem records an event of the known item id of type typ, and counts
// as malformed a change of type and an event after the item completed.
// The latest item is held in p.cur, outside p.items: an item's events come
// together, so most of them find it there without hashing the id, and it
// goes into the map (once) when another item's event comes; bounded
// (Options.Bounded), a completed item does not, and leaves it. It returns
// whether the item was seen before.
func (p *Parser) noteItem(id, typ string, ph phase) bool {
	var s itemState
	seen := true
	if id == p.curID {
		s = p.cur
		if p.opts.Bounded && s.completed {
			s, seen = itemState{}, false // forgotten: a new item
		}
	} else {
		switch {
		case p.curID == "":
		case p.opts.Bounded && p.cur.completed:
			delete(p.items, p.curID) // forgotten: a later event is a new item
		default:
			p.items[p.curID] = p.cur
		}
		s, seen = p.items[id]
		p.curID = id
	}
	t := uint8(slices.Index(itemTypes[:], typ))
	if !seen {
		s.typ = t
	} else {
		if s.typ != t {
			p.markMalformed("item ", id, " changed type from ", itemTypes[s.typ], " to ", typ)
			s.typ = t
		}
		if s.completed {
			p.markMalformed(ph.event(), " for item ", id, " after its item.completed")
		}
	}
	s.completed = s.completed || ph == phaseCompleted
	p.cur = s
	return seen
}

// itemTypes are the item types the parser maps itself.
var itemTypes = [...]string{itAgentMessage, itReasoning, itCommandExecution, itFileChange, itMCPToolCall, itWebSearch, itTodoList, itError}

func (p *Parser) itemStarted(f ndjson.Frame) error   { return p.itemEvent(f, phaseStarted) }
func (p *Parser) itemUpdated(f ndjson.Frame) error   { return p.itemEvent(f, phaseUpdated) }
func (p *Parser) itemCompleted(f ndjson.Frame) error { return p.itemEvent(f, phaseCompleted) }

// itemEvent handles item.started, item.updated and item.completed.
func (p *Parser) itemEvent(f ndjson.Frame, ph phase) error {
	// Feed's one-pass walk decoded the item already (p.fast); otherwise
	// decode into the parser's scratch item: one allocation less per line.
	// An absent "item" leaves the zero item, whose empty type is reported.
	// ev is the parser's own: a local would escape to the heap through
	// Decode, one allocation per line.
	ev := &p.fastEv
	var derr error
	if !p.fast {
		p.scratch = wireItem{}
		*ev = wireItemEvent{Item: &p.scratch}
		derr = f.Decode(ev)
	}
	if derr != nil {
		// A future item type may carry fields whose names the union
		// struct gives another type: keep it as an unknown item rather
		// than calling it malformed.
		var probe struct {
			Item *struct {
				ID   string  `json:"id"`
				Type *string `json:"type"`
			} `json:"item"`
		}
		if jsonguard.Check(f.Data, 0) == nil && f.Decode(&probe) == nil && probe.Item != nil &&
			probe.Item.Type != nil && !knownItem(*probe.Item.Type) {
			return p.otherItem(f, ph, probe.Item.ID, *probe.Item.Type)
		}
		return p.malformedLine(f, "invalid "+ph.event()+" event: "+derr.Error())
	}
	it := ev.Item
	if it == nil {
		return p.malformedLine(f, ph.event()+" without an item")
	}
	typ := it.Type
	if typ == "" {
		return p.malformedLine(f, ph.event()+" item without a type")
	}
	if !knownItem(typ) {
		return p.otherItem(f, ph, it.ID, typ)
	}
	id := it.ID
	if id == "" {
		// The lifecycle still needs an id: the line number is unique.
		p.markMalformed(ph.event() + " item without an id")
		id = "line-" + strconv.Itoa(f.Line)
	}
	p.lastID = ""
	if plainID(id) {
		p.lastID = id
	}
	if c := it.Command; c != "" && c != p.lastCommand {
		p.lastCommand = ""
		if plainID(c) { // plain as an id must be
			p.lastCommand = c
		}
	}
	if p.st == stateStart && typ != itError {
		// Warnings (error items) may precede thread.started; nothing else.
		p.markMalformed(ph.event() + " before thread.started")
	}
	seen := p.noteItem(id, typ, ph)
	p.noted = id == it.ID
	switch typ {
	case itAgentMessage:
		return p.message(f, emit.Text, driver.TranscriptAssistant, id, it, ph)
	case itReasoning:
		return p.message(f, emit.Reasoning, driver.TranscriptThinking, id, it, ph)
	case itCommandExecution, itFileChange, itMCPToolCall, itWebSearch:
		return p.tool(f, id, typ, it, ph, seen)
	case itTodoList:
		return p.todoList(f, id, it, ph)
	}
	return p.errorItem(f, id, it, ph)
}

// message maps agent_message and reasoning items. codex emits them only
// as item.completed with the whole text; a started or updated event (not
// seen from any release) opens the lifecycle and the text still arrives
// on completion, as one delta.
func (p *Parser) message(f ndjson.Frame, fam emit.Family, kind driver.TranscriptKind, id string, it *wireItem, ph phase) error {
	if ph != phaseCompleted {
		_, err := p.em.Open(fam, "", id)
		return err
	}
	text := string(it.Text)
	if fam == emit.Text {
		p.output = text
	}
	if text == "" {
		if _, err := p.em.Open(fam, "", id); err != nil { // an empty text still has a lifecycle
			return err
		}
	} else if err := p.em.Delta(fam, "", id, text); err != nil { // opens it if it is not open
		return err
	}
	if err := p.em.Close(fam, "", id, nil); err != nil {
		return err
	}
	if text == "" {
		return nil // no transcript item: assistant and thinking items need Text
	}
	return p.em.Item(driver.TranscriptItem{Kind: kind, Text: text})
}

// toolArgs is the complete call of a tool item: what tool_call.start and
// the tool_call transcript item carry.
func (p *Parser) toolArgs(typ string, it *wireItem, cs []any) map[string]any {
	switch typ {
	case itCommandExecution:
		return p.commandArgs.get(it.Command)
	case itFileChange:
		return map[string]any{"changes": cs}
	case itMCPToolCall:
		m := map[string]any{"server": it.Server, "tool": it.Tool}
		if present(it.Arguments) {
			m["arguments"] = anyOf(it.Arguments)
		}
		return m
	case itWebSearch:
		m := map[string]any{"query": it.Query}
		if present(it.Action) {
			m["action"] = anyOf(it.Action)
		}
		return m
	}
	return nil
}

func changes(cs []wireChange) []any {
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		m := map[string]any{"path": c.Path, "kind": c.Kind}
		if c.Diff != nil {
			m["diff"] = *c.Diff
		}
		out = append(out, m)
	}
	return out
}

// anyOf decodes a raw member already validated as part of its line.
func anyOf(raw []byte) any {
	var v any
	if jsonguard.Unmarshal(raw, &v, 0) != nil {
		return string(raw)
	}
	return v
}

// failedStatus lists the statuses that make a tool result an error.
func failedStatus(s string) bool {
	switch s {
	case "failed", "declined", "error", "cancelled", "interrupted":
		return true
	}
	return false
}

// toolResult is the result of a completed tool item: the StreamPayload
// Result and the tool_result transcript item.
func (p *Parser) toolResult(id, typ string, it *wireItem, cs []any) (map[string]any, driver.TranscriptItem) {
	status := it.Status
	res := map[string]any{}
	tr := driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: id, ToolName: typ, IsError: failedStatus(status)}
	if status != "" {
		res["status"] = statusValue(status)
	}
	if typ == itCommandExecution {
		out := string(it.AggregatedOutput)
		res["output"] = out
		tr.Text = out
		if it.ExitCode != nil {
			res["exit_code"] = *it.ExitCode
			if *it.ExitCode != 0 {
				tr.IsError = true
			}
		}
		tr.Data = p.commandData.get(status, it.ExitCode)
		return res, tr
	}
	data := map[string]any{}
	if status != "" {
		data["status"] = statusValue(status)
	}
	switch typ {
	case itFileChange:
		res["changes"] = cs
		data["changes"] = cs
	case itMCPToolCall:
		if present(it.Result) {
			v := anyOf(it.Result)
			res["result"] = v
			tr.Text = mcpText(v)
			data["result"] = v
		}
		if present(it.Error) {
			v := anyOf(it.Error)
			res["error"] = v
			data["error"] = v
			tr.IsError = true
			if m, ok := v.(map[string]any); ok {
				if s, ok := m["message"].(string); ok && tr.Text == "" {
					tr.Text = s
				}
			}
		}
	case itWebSearch:
		res["query"] = it.Query
		if present(it.Action) {
			res["action"] = anyOf(it.Action)
		}
	}
	if len(data) > 0 {
		tr.Data = data
	}
	return res, tr
}

// statusValue is status as an interface value, without the allocation
// of converting a string variable for the statuses codex writes.
func statusValue(status string) any {
	switch status {
	case "completed":
		return "completed"
	case "in_progress":
		return "in_progress"
	case "failed":
		return "failed"
	case "declined":
		return "declined"
	}
	return status
}

// plainID reports whether id reads the same as the bytes of its JSON
// literal (no quote, backslash or control character): what fastItem
// needs to recognise it in the next line (wireItem.prevID).
func plainID(id string) bool {
	for i := range len(id) {
		if c := id[i]; c == '"' || c == '\\' || c < 0x20 {
			return false
		}
	}
	return id != ""
}

// commandData hands out the Data of command results: {"status",
// "exit_code"}, either member absent when the event has none. A session's
// commands share a handful of (status, exit code) pairs, so the read-only
// maps are shared between the items that have equal ones (a sink must not
// modify an item, emit.Emitter.Item): a map of two members costs about
// 350 bytes, as much as the item, on every command of a long session.
// At most len(entries) distinct pairs are shared; the rest get their own.
type commandData struct {
	entries [16]commandDataEntry
	n       int
}

type commandDataEntry struct {
	status  string
	exit    int
	hasExit bool
	data    map[string]any
}

// get returns the Data for status and exit (nil: no exit code), nil when
// there is neither.
func (c *commandData) get(status string, exit *int) map[string]any {
	if status == "" && exit == nil {
		return nil
	}
	e := commandDataEntry{status: status, hasExit: exit != nil}
	if exit != nil {
		e.exit = *exit
	}
	for i := range c.entries[:c.n] {
		if k := &c.entries[i]; k.status == e.status && k.hasExit == e.hasExit && k.exit == e.exit {
			return k.data
		}
	}
	e.data = make(map[string]any, 2)
	if status != "" {
		e.data["status"] = status
	}
	if exit != nil {
		e.data["exit_code"] = e.exit
	}
	if c.n < len(c.entries) {
		c.entries[c.n] = e
		c.n++
	}
	return e.data
}

// commandArgs hands out the Args of command calls, {"command": c}, which
// are also their tool_call items' Input: a session runs some commands
// again and again (its tests, git status, a listing), and a map of one
// member costs about 350 bytes, more than a small command item's line
// (36% of the heap a small-item session keeps, 0.64 bytes per input
// byte), so the read-only maps (a sink must not modify what it is given,
// driver.EventSink) are shared between the calls of one command among the
// last len(entries) distinct ones. A session of distinct commands gets a
// map per call, as before, and pays the comparisons.
type commandArgs struct {
	entries [16]commandArgsEntry
	next    int // the slot the next distinct command takes
}

type commandArgsEntry struct {
	command string
	args    map[string]any
}

// get returns the Args of command.
func (c *commandArgs) get(command string) map[string]any {
	for i := range c.entries {
		if e := &c.entries[i]; len(e.command) == len(command) && e.args != nil && e.command == command {
			return e.args
		}
	}
	args := map[string]any{"command": command}
	c.entries[c.next] = commandArgsEntry{command, args}
	c.next = (c.next + 1) % len(c.entries)
	return args
}

// mcpText joins the text blocks of an MCP result's content.
func mcpText(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	blocks, _ := m["content"].([]any)
	var parts []string
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok && bm["type"] == "text" {
			if s, ok := bm["text"].(string); ok {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// tool maps command_execution, file_change, mcp_tool_call and web_search.
// The first event of an item (item.started, or item.completed for the
// completed-only file_change of older releases) opens the call with its
// complete arguments; item.completed closes it with the result.
// item.updated changes nothing on the lifecycle and is kept as a custom
// payload.
//
// seen says whether the item had an event before: one that had none has
// no lifecycle, and the emitter is not asked.
func (p *Parser) tool(f ndjson.Frame, id, typ string, it *wireItem, ph phase, seen bool) error {
	open := seen && p.em.IsOpen(emit.Tool, "", id)
	if open && ph == phaseUpdated {
		raw, err := p.rawOf(f)
		if err != nil {
			return p.undecodable(f, err)
		}
		return p.em.Custom(Provider, evItemUpdated, driver.StreamPayload{ToolCallID: id, Raw: raw})
	}
	// A file change's list serves the arguments and the result of one
	// event: both are read-only.
	var cs []any
	if typ == itFileChange {
		cs = changes(it.Changes)
	}
	if !open {
		// The call's first event, or (malformed, already counted) an
		// event after its completion, which the emitter turns into a new
		// incarnation "id#2".
		// One map serves the payload and the item: both are read-only.
		args := p.toolArgs(typ, it, cs)
		if _, err := p.em.OpenTool("", id, typ, args, "", ""); err != nil {
			return err
		}
		if err := p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: id, ToolName: typ, Input: args}); err != nil {
			return err
		}
	}
	if ph != phaseCompleted {
		return nil
	}
	res, tr := p.toolResult(id, typ, it, cs)
	// The completed item is the call's result: codex sends no other.
	if err := p.em.CloseWithResult("", id, res); err != nil {
		return err
	}
	return p.em.Item(tr)
}

// todoList keeps the agent's plan: every event is a codex/todo_list
// custom payload with the item in Raw; the completed list (sent at the
// end of the turn) is also a system transcript item.
func (p *Parser) todoList(f ndjson.Frame, id string, it *wireItem, ph phase) error {
	raw, err := p.rawOf(f)
	if err != nil {
		return p.undecodable(f, err)
	}
	if err := p.em.CustomRaw(Provider, itTodoList, raw); err != nil {
		return err
	}
	if ph != phaseCompleted {
		return nil
	}
	var b strings.Builder
	items := make([]any, 0, len(it.Items))
	for _, t := range it.Items {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if t.Completed {
			b.WriteString("[x] ")
		} else {
			b.WriteString("[ ] ")
		}
		b.WriteString(t.Text)
		items = append(items, map[string]any{"text": t.Text, "completed": t.Completed})
	}
	text := b.String()
	if text == "" {
		text = "(empty todo list)"
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: text,
		Metadata: map[string]string{"item_type": itTodoList, "item_id": id}, Data: map[string]any{"items": items}})
}

// errorItem maps an error item: a non-fatal warning (config warnings,
// deprecation notices, "model rerouted"). It never fails the run.
func (p *Parser) errorItem(f ndjson.Frame, id string, it *wireItem, ph phase) error {
	msg := it.Message
	if msg == "" {
		p.markMalformed("error item " + id + " without a message")
		msg = "error"
	}
	raw, err := p.rawOf(f)
	if err != nil {
		return p.undecodable(f, err)
	}
	if err := p.em.CustomRaw(Provider, itError+"_item", raw); err != nil {
		return err
	}
	if ph != phaseCompleted {
		return nil
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: msg,
		Metadata: map[string]string{"item_type": itError, "item_id": id}})
}

// otherItem keeps an item type the SPI has no lifecycle for
// (collab_tool_call, plan, and types added later) as a custom payload
// codex/<type> with the whole event in Raw; its completion is also a
// system transcript item.
func (p *Parser) otherItem(f ndjson.Frame, ph phase, id, typ string) error {
	raw, err := p.rawOf(f)
	if err != nil {
		return p.undecodable(f, err)
	}
	if !knownItem(typ) {
		p.unknown++
	}
	if err := p.em.CustomRaw(Provider, typ, raw); err != nil {
		return err
	}
	if ph != phaseCompleted {
		return nil
	}
	meta := map[string]string{"item_type": typ}
	if id != "" {
		meta["item_id"] = id
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: "codex item " + typ, Metadata: meta, Data: map[string]any{"event": raw}})
}
