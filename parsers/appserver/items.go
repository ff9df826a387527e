package appserver

import (
	"slices"
	"strings"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/emit"
	"github.com/agentwire/agentwire/internal/jsonguard"
	"github.com/agentwire/agentwire/jsonrpc"
	"github.com/segmentio/encoding/json"
)

// toolName is the tool name of each tool-like item type, the same on the
// stream and in the transcript.
var toolName = map[string]string{
	"commandExecution":    "shell",
	"fileChange":          "file_change",
	"webSearch":           "web_search",
	"imageView":           "image_view",
	"imageGeneration":     "image_generation",
	"collabAgentToolCall": "collab_agent",
	"collabToolCall":      "collab_agent",
}

// item decodes the item of an item notification into the parser's own
// item (valid until the next one), with fastItem or, where it gives up,
// jsonguard.Unmarshal.
func (p *Parser) item(f *jsonrpc.Frame, pr *params) (*wireItem, bool, error) {
	it := &p.it
	*it = wireItem{}
	if len(pr.Item) > 0 && !p.fastItem(f, pr.Item, it) {
		*it = wireItem{}
		if jsonguard.Unmarshal(pr.Item, it, 0) != nil {
			it.ID = "" // reported below
		}
	}
	if it.ID == "" || it.Type == "" {
		return nil, false, p.malformedFrame(f, string(f.Method)+" without a valid item (type, id)")
	}
	return it, true, nil
}

func (p *Parser) state(id, typ string) *itemState {
	s := p.items[id]
	if s == nil {
		s = &itemState{typ: typ}
		p.items[id] = s
		p.itemOrder = append(p.itemOrder, id)
	}
	return s
}

func (p *Parser) itemStarted(f *jsonrpc.Frame, pr *params) error {
	it, ok, err := p.item(f, pr)
	if !ok {
		return err
	}
	if p.opts.Unpaired != nil {
		p.pairItem(f, it, true)
	}
	if err := p.start(); err != nil {
		return err
	}
	s := p.state(it.ID, it.Type)
	s.started = true
	switch it.Type {
	case "agentMessage":
		_, err := p.em.Open(emit.Text, "", it.ID)
		return err
	case "reasoning":
		_, err := p.em.Open(emit.Reasoning, "", it.ID)
		return err
	case "userMessage":
		return p.em.Err()
	}
	if name := p.toolOf(it); name != "" {
		return p.openTool(s, it, name)
	}
	return p.otherItem(f, pr, it, "started")
}

// toolOf returns the tool name of a tool-like item, "" for other items.
func (p *Parser) toolOf(it *wireItem) string {
	switch it.Type {
	case "mcpToolCall":
		return "mcp/" + nonEmpty(it.Server, "unknown") + "/" + nonEmpty(it.Tool, "unknown")
	case "dynamicToolCall":
		return nonEmpty(it.Tool, "dynamic_tool")
	}
	return toolName[it.Type]
}

func (p *Parser) openTool(s *itemState, it *wireItem, name string) error {
	if s.toolOpen {
		return p.em.Err()
	}
	args := toolArgs(it)
	s.toolOpen = true
	if _, err := p.em.OpenTool("", it.ID, name, args, "", ""); err != nil {
		return err
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptToolCall, ToolUseID: it.ID, ToolName: name, Input: args, Metadata: map[string]string{"item_type": it.Type}})
}

// anyOf decodes a raw JSON value for a payload map (nil when absent).
func anyOf(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v any
	if jsonguard.Unmarshal(raw, &v, 0) != nil {
		return string(raw)
	}
	return v
}

func toolArgs(it *wireItem) map[string]any {
	args := map[string]any{}
	put := func(k string, v any) {
		if v != nil && v != "" {
			args[k] = v
		}
	}
	switch it.Type {
	case "commandExecution":
		put("command", anyOf(it.Command))
		put("cwd", it.Cwd)
	case "fileChange":
		var cs []struct {
			Path string          `json:"path"`
			Kind json.RawMessage `json:"kind"`
		}
		if jsonguard.Unmarshal(it.Changes, &cs, 0) == nil {
			var out []any
			for _, c := range cs {
				out = append(out, map[string]any{"path": c.Path, "kind": anyOf(c.Kind)})
			}
			put("changes", out)
		}
	case "mcpToolCall", "dynamicToolCall":
		if a, ok := anyOf(it.Arguments).(map[string]any); ok {
			return a
		}
		put("arguments", anyOf(it.Arguments))
	case "webSearch":
		put("query", it.Query)
	case "imageView":
		put("path", it.Path)
	case "imageGeneration":
		put("prompt", it.RevisedPrompt)
	case "collabAgentToolCall", "collabToolCall":
		put("tool", it.Tool)
		put("prompt", it.Prompt)
		put("receiver_thread_ids", anyOf(it.ReceiverThreads))
	}
	return args
}

// failedStatus reports whether an item status means the call did not
// succeed.
func failedStatus(s string) bool {
	return s == "failed" || s == "declined" || s == "error"
}

func toolResult(it *wireItem) (map[string]any, string, bool) {
	res := map[string]any{}
	put := func(k string, v any) {
		if v != nil && v != "" {
			res[k] = v
		}
	}
	put("status", it.Status)
	isErr := failedStatus(it.Status)
	text := ""
	switch it.Type {
	case "commandExecution":
		if it.ExitCode != nil {
			res["exit_code"] = *it.ExitCode
		}
		if it.AggregatedOutput != nil {
			text = *it.AggregatedOutput
			put("output", text)
		}
	case "fileChange":
		put("changes", anyOf(it.Changes))
	case "mcpToolCall":
		put("result", anyOf(it.Result))
		if e := anyOf(it.Error); e != nil {
			res["error"] = e
			isErr = true
		}
	case "dynamicToolCall":
		put("content_items", anyOf(it.ContentItems))
		if it.Success != nil {
			res["success"] = *it.Success
			isErr = isErr || !*it.Success
		}
	case "webSearch":
		put("action", anyOf(it.Action))
	case "imageGeneration":
		put("saved_path", it.SavedPath)
	}
	if it.DurationMs != nil {
		res["duration_ms"] = *it.DurationMs
	}
	return res, text, isErr
}

func (p *Parser) itemCompleted(f *jsonrpc.Frame, pr *params) error {
	it, ok, err := p.item(f, pr)
	if !ok {
		return err
	}
	if p.opts.Unpaired != nil {
		p.pairItem(f, it, false)
	}
	s := p.state(it.ID, it.Type)
	s.completed = true
	if err := p.start(); err != nil {
		return err
	}
	if s.done {
		return p.malformedFrame(f, "item/completed twice for item "+it.ID)
	}
	s.done = true
	if p.opts.Bounded {
		defer p.forget(it.ID)
	}
	switch it.Type {
	case "agentMessage":
		if !s.deltas {
			if err := p.em.Delta(emit.Text, "", it.ID, it.Text); err != nil {
				return err
			}
		}
		if err := p.em.Close(emit.Text, "", it.ID, nil); err != nil {
			return err
		}
		if it.Phase == "final_answer" || !p.finalOutput {
			p.output = it.Text
			p.finalOutput = it.Phase == "final_answer"
		}
		if it.Text == "" {
			return p.em.Err()
		}
		meta := map[string]string{"item_id": it.ID}
		if it.Phase != "" {
			meta["phase"] = it.Phase
		}
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptAssistant, Text: it.Text, Metadata: meta})
	case "reasoning":
		text := joinStrings(it.Content)
		if text == "" {
			text = joinStrings(it.Summary)
		}
		if !s.deltas {
			if err := p.em.Delta(emit.Reasoning, "", it.ID, text); err != nil {
				return err
			}
		}
		if err := p.em.Close(emit.Reasoning, "", it.ID, nil); err != nil {
			return err
		}
		if text == "" {
			return p.em.Err()
		}
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptThinking, Text: text, Metadata: map[string]string{"item_id": it.ID}})
	case "userMessage":
		text := userText(it.Content)
		if text == "" {
			return p.em.Err()
		}
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptUser, Text: text, Metadata: map[string]string{"item_id": it.ID}})
	}
	if name := p.toolOf(it); name != "" {
		if err := p.openTool(s, it, name); err != nil {
			return err
		}
		res, text, isErr := toolResult(it)
		if err := p.em.Close(emit.Tool, "", it.ID, res); err != nil {
			return err
		}
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptToolResult, ToolUseID: it.ID, ToolName: name, Text: text, IsError: isErr, Data: res})
	}
	return p.otherItem(f, pr, it, "completed")
}

// otherItem maps an item type without a lifecycle (plan, contextCompaction,
// review mode, hookPrompt, and unknown types such as sleep) to the custom
// kind appserver/<item type> with the raw item, plus a system item on
// completion.
func (p *Parser) otherItem(f *jsonrpc.Frame, pr *params, it *wireItem, phase string) error {
	switch it.Type {
	case "plan", "contextCompaction", "enteredReviewMode", "exitedReviewMode", "hookPrompt":
	default:
		if phase == "started" {
			p.unknown++
		}
	}
	raw := map[string]any{"method": string(f.Method), "phase": phase, "item_type": it.Type, "item": rawValue(pr.Item)}
	if err := p.custom(it.Type, pr.ThreadID, pr.TurnID, raw); err != nil {
		return err
	}
	if phase != "completed" {
		return p.em.Err()
	}
	text := it.Text
	if text == "" {
		text = it.Type
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: text, Metadata: map[string]string{"item_type": it.Type, "item_id": it.ID}})
}

func joinStrings(raw json.RawMessage) string {
	var ss []string
	if len(raw) == 0 || jsonguard.Unmarshal(raw, &ss, 0) != nil {
		return ""
	}
	return strings.Join(ss, "\n")
}

// userText joins the text inputs of a userMessage's content.
func userText(raw json.RawMessage) string {
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if len(raw) == 0 || jsonguard.Unmarshal(raw, &parts, 0) != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range parts {
		if c.Type == "text" && c.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

func (p *Parser) agentDelta(f *jsonrpc.Frame, pr *params) error {
	if pr.ItemID == "" {
		return p.malformedFrame(f, "delta without itemId")
	}
	if err := p.start(); err != nil {
		return err
	}
	s := p.state(pr.ItemID, "agentMessage")
	if s.done {
		return p.malformedFrame(f, "delta after item/completed for item "+pr.ItemID)
	}
	d, ok := pr.delta()
	if !ok {
		return p.malformedFrame(f, "delta is not a string")
	}
	s.deltas = true
	return p.em.Delta(emit.Text, "", pr.ItemID, d)
}

func (p *Parser) reasoningDelta(f *jsonrpc.Frame, pr *params) error {
	if pr.ItemID == "" {
		return p.malformedFrame(f, "delta without itemId")
	}
	if err := p.start(); err != nil {
		return err
	}
	s := p.state(pr.ItemID, "reasoning")
	if s.done {
		return p.malformedFrame(f, "delta after item/completed for item "+pr.ItemID)
	}
	d, ok := pr.delta()
	if !ok {
		return p.malformedFrame(f, "delta is not a string")
	}
	s.deltas = true
	return p.em.Delta(emit.Reasoning, "", pr.ItemID, d)
}

// tokenUsage keeps the turn's usage: the increase of the thread total over
// the turn (see the package doc).
func (p *Parser) tokenUsage(f *jsonrpc.Frame, pr *params) error {
	tu := pr.TokenUsage
	if tu == nil || tu.Total == nil {
		return p.malformedFrame(f, "thread/tokenUsage/updated without tokenUsage.total")
	}
	p.applyUsage(*tu.Total, tu.Last, false)
	return p.em.Err()
}

// legacyTokenCountMethod is the v1 usage notification, the only usage
// source of builds before thread/tokenUsage/updated (0.58.0).
const legacyTokenCountMethod = "codex/event/token_count"

// legacyTokenCount maps codex/event/token_count: msg.info.total_token_usage
// is the thread total and last_token_usage the last model call, as total
// and last of thread/tokenUsage/updated, so the turn's usage is derived the
// same way. info is null in the first one of a session (rate limits only).
// A build that sent both notifications would count every call twice: once
// a thread/tokenUsage/updated is seen, token_count is ignored, and a turn
// whose usage began on token_count starts again on the v2 figures. The
// notification is also kept as a custom payload, like every v1 event.
func (p *Parser) legacyTokenCount(f *jsonrpc.Frame, pr *params) error {
	if err := p.customFrame(f, pr); err != nil {
		return err
	}
	var lp struct {
		ConversationID string `json:"conversationId"`
		Msg            struct {
			Info *struct {
				Total *wireLegacyTokens `json:"total_token_usage"`
				Last  *wireLegacyTokens `json:"last_token_usage"`
			} `json:"info"`
		} `json:"msg"`
	}
	if f.DecodeParams(&lp) != nil {
		return p.malformedFrame(f, legacyTokenCountMethod+" with malformed params")
	}
	info := lp.Msg.Info
	if p.sawV2Usage || info == nil || info.Total == nil ||
		lp.ConversationID != "" && p.threadID != "" && lp.ConversationID != p.threadID {
		return p.em.Err()
	}
	var last *wireTokens
	if info.Last != nil {
		l := info.Last.tokens()
		last = &l
	}
	p.applyUsage(info.Total.tokens(), last, true)
	return p.em.Err()
}

// applyUsage records a thread total and, for the turn's first report, the
// total before it (total minus the last call).
func (p *Parser) applyUsage(total wireTokens, last *wireTokens, legacy bool) {
	if !legacy && !p.sawV2Usage {
		// The first v2 figures: forget those of token_count, so that the
		// two sources are never mixed.
		p.sawV2Usage = true
		p.threadTok = nil // only token_count can have set it
		if p.turnUsage != nil && p.turnUsage.legacy {
			p.turnUsage = nil
		}
	}
	if p.turnUsage == nil {
		// The thread total before the turn: the last total seen, else
		// this one minus its last call. Not the first report's alone:
		// 0.58.0 repeats the previous turn's report when a turn begins
		// (its "last" is the previous turn's call), which would count
		// that call twice (corpus two-turns).
		base := total
		switch {
		case p.threadTok != nil:
			base = *p.threadTok
		case last != nil:
			base = sub(base, *last)
		}
		p.turnUsage = &turnUsage{base: base, legacy: legacy}
	}
	p.turnUsage.last = total
	p.threadTokBuf = total
	p.threadTok = &p.threadTokBuf
}

func sub(a, b wireTokens) wireTokens {
	return wireTokens{
		TotalTokens: max(0, a.TotalTokens-b.TotalTokens), InputTokens: max(0, a.InputTokens-b.InputTokens),
		CachedInputTokens: max(0, a.CachedInputTokens-b.CachedInputTokens), OutputTokens: max(0, a.OutputTokens-b.OutputTokens),
		ReasoningOutputTokens: max(0, a.ReasoningOutputTokens-b.ReasoningOutputTokens),
	}
}

// addTurnUsage adds the finished turn's usage to the run's.
func (p *Parser) addTurnUsage() {
	if p.turnUsage == nil {
		return
	}
	d := sub(p.turnUsage.last, p.turnUsage.base)
	if p.usage == nil {
		p.usage = &driver.Usage{}
	}
	p.usage.InputTokens += d.InputTokens
	p.usage.CachedInputTokens += d.CachedInputTokens
	p.usage.OutputTokens += d.OutputTokens
	p.turnUsage = nil
}

func (p *Parser) errorNotification(f *jsonrpc.Frame, pr *params) error {
	msg := ""
	meta := map[string]string{}
	if pr.Error != nil {
		msg = pr.Error.Message
		if code := errorCode(pr.Error.CodexErrorInfo); code != "" {
			meta["code"] = code
		}
	}
	msg = nonEmpty(msg, "error")
	raw := map[string]any{"method": mError, "params": rawValue(f.Params)}
	if err := p.custom(mError, pr.ThreadID, pr.TurnID, raw); err != nil {
		return err
	}
	if pr.WillRetry {
		// A retry notice, not a failure: the turn goes on.
		meta["will_retry"] = "true"
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: msg, Metadata: meta})
	}
	p.lastError = msg
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptFailure, Text: msg, Metadata: meta})
}

// errorCode renders codexErrorInfo: a string ("other") or the single key
// of an object ({"responseStreamDisconnected":{...}}).
func errorCode(raw json.RawMessage) string {
	switch v := anyOf(raw).(type) {
	case string:
		return v
	case map[string]any:
		for k := range v {
			return k
		}
	}
	return ""
}

func (p *Parser) warning(f *jsonrpc.Frame, pr *params) error {
	text := nonEmpty(pr.Summary, nonEmpty(pr.Message, string(f.Method)))
	if err := p.customFrame(f, pr); err != nil {
		return err
	}
	return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptSystem, Text: text, Metadata: map[string]string{"method": string(f.Method)}})
}

// turnCompleted is the terminal of this run's turn: its status decides
// success. Items still open are closed first.
func (p *Parser) turnCompleted(f *jsonrpc.Frame, pr *params) error {
	if pr.Turn == nil || pr.Turn.ID == "" || pr.Turn.Status == "" {
		return p.malformedFrame(f, "turn/completed without turn.id and turn.status")
	}
	if err := p.adoptThread(pr.ThreadID); err != nil {
		return err
	}
	if p.turnID == "" {
		if err := p.beginTurn(pr.Turn.ID); err != nil {
			return err
		}
	}
	if p.terminal != nil && p.turnID == pr.Turn.ID {
		return p.malformedFrame(f, "turn/completed twice for turn "+pr.Turn.ID)
	}
	msg := ""
	if pr.Turn.Error != nil {
		msg = pr.Turn.Error.Message
	}
	if err := p.endTurn(f, pr.Turn.Status, msg); err != nil {
		return err
	}
	switch p.turnStatus {
	case "completed", "failed", "interrupted":
	default:
		return p.malformedFrame(f, "turn/completed with unknown status "+p.turnStatus)
	}
	return p.em.Err()
}

// endTurn records f as this run's terminal with the turn's status.
func (p *Parser) endTurn(f *jsonrpc.Frame, status, errMsg string) error {
	if err := p.closeItems(); err != nil {
		return err
	}
	if err := p.em.StepFinished("turn"); err != nil {
		return err
	}
	p.terminal = &driver.TerminalPayload{Event: string(f.Method), JSON: append(json.RawMessage(nil), f.Data...)}
	p.turnStatus, p.turnError = status, errMsg
	p.addTurnUsage()
	p.st = stateDone
	return p.em.Err()
}

// legacyEvent handles a codex/event/<type> notification under
// Options.LegacyTurnEnd: error, task_complete and turn_aborted of this
// run's thread end the turn; every one is also kept as a custom payload.
func (p *Parser) legacyEvent(f *jsonrpc.Frame, pr *params) error {
	if err := p.customFrame(f, pr); err != nil {
		return err
	}
	var lp struct {
		ID             string `json:"id"`
		ConversationID string `json:"conversationId"`
		Msg            struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"msg"`
	}
	if f.DecodeParams(&lp) != nil {
		return p.malformedFrame(f, "legacy event with malformed params")
	}
	if lp.ConversationID != "" && p.threadID != "" && lp.ConversationID != p.threadID {
		return p.em.Err()
	}
	if p.st != stateTurn {
		return p.em.Err()
	}
	switch lp.Msg.Type {
	case "error":
		p.legacyErr = nonEmpty(lp.Msg.Message, "error")
		p.lastError = p.legacyErr
		return p.em.Item(driver.TranscriptItem{Kind: driver.TranscriptFailure, Text: p.legacyErr, Metadata: map[string]string{"method": string(f.Method)}})
	case "task_complete":
		if p.legacyErr != "" {
			return p.endTurn(f, "failed", p.legacyErr)
		}
		return p.endTurn(f, "completed", "")
	case "turn_aborted":
		return p.endTurn(f, "interrupted", "")
	}
	return p.em.Err()
}

// forget drops the state of a completed item (Options.Bounded):
// a later event with its id is a new item. itemOrder is compacted once
// it holds twice the items kept, so that it too stays the size of the
// items open.
func (p *Parser) forget(id string) {
	delete(p.items, id)
	if len(p.itemOrder) > 2*len(p.items)+64 {
		p.itemOrder = slices.DeleteFunc(p.itemOrder, func(id string) bool { return p.items[id] == nil })
	}
}

// closeItems closes the lifecycles of items that got deltas or a start but
// never an item/completed (an interrupted or failed turn). Every item is
// then done, so itemOrder starts again empty: a turn's end visits the
// items made since the last one, not every item of the session.
func (p *Parser) closeItems() error {
	for _, id := range p.itemOrder {
		s := p.items[id]
		if s == nil || s.done {
			continue // forgotten (Options.Bounded), or completed
		}
		s.done = true
		fam := emit.Text
		switch {
		case s.typ == "reasoning":
			fam = emit.Reasoning
		case s.toolOpen:
			fam = emit.Tool
		}
		if p.em.IsOpen(fam, "", id) {
			var res map[string]any
			if fam == emit.Tool {
				res = map[string]any{"status": "incomplete"}
			}
			if err := p.em.Close(fam, "", id, res); err != nil {
				return err
			}
		}
	}
	p.itemOrder = p.itemOrder[:0]
	return p.em.Err()
}
