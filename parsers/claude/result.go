package claude

import (
	"bytes"
	"strconv"

	"github.com/agentwire/agentwire/driver"
	"github.com/agentwire/agentwire/internal/anthropicapi"
	"github.com/agentwire/agentwire/ndjson"
)

func (p *Parser) resultLine(f ndjson.Frame) error {
	var l resultLine
	if err := f.Decode(&l); err != nil {
		return p.decodeErr(f, err)
	}
	item := resultItem(&l)
	if l.ParentToolUseID != "" {
		// Only the root result ends the run.
		if err := p.em.Item(p.scoped(item, l.ParentToolUseID)); err != nil {
			return err
		}
		return p.em.Custom(provider, "result", driver.StreamPayload{ScopeID: l.ParentToolUseID, Raw: p.rawLine(f)})
	}
	if p.opts.Unpaired != nil && l.Subtype == "success" && (l.IsError == nil || !*l.IsError) {
		p.pairSuccess()
	}
	p.result = &l
	p.terminal = bytes.Clone(f.Data)
	p.success = l.Subtype == "success" && l.IsError != nil && !*l.IsError
	p.state = stateResult
	if l.Usage == nil {
		item.Usage = p.fallbackUsage()
	}
	return p.em.Item(item)
}

func resultItem(l *resultLine) driver.TranscriptItem {
	it := driver.TranscriptItem{Kind: driver.TranscriptResult, SessionID: l.SessionID, Subtype: l.Subtype,
		IsError: !(l.Subtype == "success" && l.IsError != nil && !*l.IsError), CostUSD: l.TotalCostUSD}
	if l.Result != nil {
		it.Text = *l.Result
	}
	if l.Usage != nil {
		it.Usage = normUsage(*l.Usage)
	}
	it.Errors = stringList(l.Errors.v)
	meta := map[string]string{}
	if l.TerminalReason != "" {
		meta["terminal_reason"] = l.TerminalReason
	}
	if l.StopReason != "" {
		meta["stop_reason"] = l.StopReason
	}
	if st := bytes.TrimSpace(l.APIErrorStatus); len(st) > 0 && string(st) != "null" {
		meta["api_error_status"] = string(st)
	}
	if l.IsError != nil {
		meta["is_error"] = strconv.FormatBool(*l.IsError)
	}
	meta["num_turns"] = strconv.Itoa(l.NumTurns)
	meta["duration_ms"] = strconv.FormatInt(l.DurationMS, 10)
	meta["duration_api_ms"] = strconv.FormatInt(l.DurationAPIMS, 10)
	it.Metadata = meta
	data := map[string]any{}
	if mu := l.ModelUsage.v; len(mu) > 0 {
		data["model_usage"] = mu
	}
	if den := l.Denials.v; len(den) > 0 {
		data["permission_denials"] = den
	}
	if s := l.Structured.raw; s != nil {
		data["structured_output"] = s
	}
	if len(data) > 0 {
		it.Data = data
	}
	return it
}

// stringList is result.errors as strings (errorText: a string's value,
// any other element's JSON text); nil when empty.
func stringList(elems []errorText) []string {
	if len(elems) == 0 {
		return nil
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		out[i] = string(e)
	}
	return out
}

// normUsage maps Anthropic usage to driver.Usage (anthropicapi.Usage):
// InputTokens is the whole prompt (input_tokens + cache_read_input_tokens
// + cache_creation_input_tokens, the Anthropic fields being disjoint), of
// which CachedInputTokens were cache reads and CacheWriteInputTokens cache
// writes. Claude Code reports no thinking-token count.
func normUsage(u apiUsage) *driver.Usage {
	return anthropicapi.Usage(u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens, 0)
}

// noteUsage records the usage of a root message. Repeated reports of one
// message id replace each other (assistant lines repeat the snapshot;
// message_delta carries cumulative output_tokens); delta merges only the
// fields it carries.
func (p *Parser) noteUsage(id string, u apiUsage, delta bool) {
	old, seen := p.msgUsage[id]
	if !seen && !p.opts.Bounded {
		p.usageKeys = append(p.usageKeys, id) // bounded, the sum needs no order
	}
	if delta && seen {
		if u.InputTokens == 0 {
			u.InputTokens = old.InputTokens
		}
		if u.CacheCreationInputTokens == 0 {
			u.CacheCreationInputTokens = old.CacheCreationInputTokens
		}
		if u.CacheReadInputTokens == 0 {
			u.CacheReadInputTokens = old.CacheReadInputTokens
		}
	}
	p.msgUsage[id] = u
}

// add adds u's token counts to a.
func (a *apiUsage) add(u apiUsage) {
	a.InputTokens += u.InputTokens
	a.CacheCreationInputTokens += u.CacheCreationInputTokens
	a.CacheReadInputTokens += u.CacheReadInputTokens
	a.OutputTokens += u.OutputTokens
}

// fallbackUsage sums the last usage of every distinct root message; nil
// when none was reported.
func (p *Parser) fallbackUsage() *driver.Usage {
	if len(p.msgUsage) == 0 && !p.folded {
		return nil
	}
	sum := p.usageFolded
	if p.opts.Bounded {
		for _, u := range p.msgUsage {
			sum.add(u)
		}
		return normUsage(sum)
	}
	for _, k := range p.usageKeys {
		sum.add(p.msgUsage[k])
	}
	return normUsage(sum)
}
