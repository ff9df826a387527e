package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentwire/agentwire/corpus/mock"
)

// Providers are the corpus providers, in recording order. Each one names a
// directory under corpus/ and under corpus/scenarios/.
var Providers = []string{"codex", "claude", "appserver", "gemini-cli", "acp"}

// A Scenario is one scripted case, loaded from
// corpus/scenarios/<provider>/<name>.json. Adding a case needs no code: a
// new file is enough.
type Scenario struct {
	// Name is the file name without ".json"; Provider the directory name.
	Name     string `json:"-"`
	Provider string `json:"-"`

	Description string `json:"description"`
	// Replies are the mock's scripted model replies, consumed one per
	// model request across all runs of the scenario.
	Replies []mock.Reply `json:"replies"`
	// RepliesByVersion replaces Replies for the CLIs it names, for CLIs
	// whose tools differ (codex 0.58 offers "shell" with an argv array where
	// 0.169 offers "exec_command" with a string; each ACP agent names its
	// shell tool differently). A key is a CLI version, a CLI name or
	// <name>@<version> (see CLI.Is).
	RepliesByVersion map[string][]mock.Reply `json:"replies_by_version,omitempty"`
	// Runs are the CLI invocations, in order (several for resume).
	Runs []Run `json:"runs"`
	// RunsByVersion replaces Runs for the CLIs it names, keyed like
	// RepliesByVersion (codex 0.58's app-server spells approval policies
	// unlessTrusted, 0.169's untrusted; of the ACP agents only some ask
	// for permission).
	RunsByVersion map[string][]Run `json:"runs_by_version,omitempty"`
	// ResumeProof, when set, must appear in a model request body of the
	// last run: it proves that run saw the earlier runs' conversation.
	ResumeProof string `json:"resume_proof,omitempty"`
	// Variants, when set, record the scenario once per variant: the case
	// is named <name> for the variant "" and <name>-<variant> otherwise,
	// and the variant's arguments are added to every run.
	Variants map[string][]string `json:"variants,omitempty"`
	// Versions, when set, restricts the scenario to these CLIs: versions,
	// names or <name>@<version> ("latest" names the pinned current
	// version).
	Versions []string `json:"versions,omitempty"`
	// TimeoutSec bounds each run (default 90).
	TimeoutSec int `json:"timeout_sec,omitempty"`
}

// A Run is one invocation of the CLI.
type Run struct {
	// Prompt is the user prompt of the first turn.
	Prompt string `json:"prompt"`
	// Turns are further prompts sent in the same session after each
	// terminal (app-server turns, Claude stream-json user messages).
	Turns []string `json:"turns,omitempty"`
	// Args are extra CLI arguments placed before the prompt.
	Args []string `json:"args,omitempty"`
	// Resume resumes the session id captured from the previous run.
	Resume bool `json:"resume,omitempty"`
	// StreamInput (Claude) uses --input-format stream-json and the control
	// protocol; the prompt is written to stdin as a user message.
	StreamInput bool `json:"stream_input,omitempty"`
	// Decisions answer permission requests in order: Claude can_use_tool
	// ("allow", "deny"), app-server approvals ("accept", "decline",
	// "cancel", "acceptForSession"), ACP session/request_permission (the
	// kind of the option selected: "allow_once", "allow_always",
	// "reject_once", "reject_always"; or "cancel", the cancelled outcome).
	Decisions []string `json:"decisions,omitempty"`
	// ThreadParams (app-server) are merged into the thread/start or
	// thread/resume params, e.g. {"approvalPolicy":"untrusted"}.
	ThreadParams json.RawMessage `json:"thread_params,omitempty"`
	// Interrupt sends the protocol interrupt (app-server turn/interrupt,
	// Claude control_request interrupt, ACP session/cancel) once the
	// trigger fires.
	Interrupt *Trigger `json:"interrupt,omitempty"`
	// Signal sends a signal to the CLI's process group once the trigger
	// fires.
	Signal *Trigger `json:"signal,omitempty"`
}

// A Trigger fires DelayMS after the mock finished writing the reply to the
// run's OnRequest-th model request (1-based): for a stalling reply, when the
// stall begins. Counting from the written reply rather than from the request
// keeps the recording stable on a loaded machine.
type Trigger struct {
	OnRequest int    `json:"on_request"`
	DelayMS   int    `json:"delay_ms,omitempty"`
	Name      string `json:"name,omitempty"` // signal name, e.g. "SIGINT"
}

// LoadFile reads one scenario file; provider is the directory it belongs to.
func LoadFile(path, provider string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Name = strings.TrimSuffix(filepath.Base(path), ".json")
	s.Provider = provider
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// Load reads every scenario under dir/<provider>/*.json, sorted by provider
// (in Providers order) then name.
func Load(dir string) ([]*Scenario, error) {
	var out []*Scenario
	for _, p := range Providers {
		files, err := filepath.Glob(filepath.Join(dir, p, "*.json"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			s, err := LoadFile(f, p)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("record: no scenarios under %s", dir)
	}
	return out, nil
}

// Validate reports the first structural problem of s.
func (s *Scenario) Validate() error {
	if s.Description == "" {
		return errors.New("missing description")
	}
	if len(s.Runs) == 0 {
		return errors.New("no runs")
	}
	for i := range s.Replies {
		if err := s.Replies[i].Validate(); err != nil {
			return fmt.Errorf("reply %d: %w", i, err)
		}
	}
	for v, rs := range s.RepliesByVersion {
		for i := range rs {
			if err := rs[i].Validate(); err != nil {
				return fmt.Errorf("replies_by_version %s: reply %d: %w", v, i, err)
			}
		}
	}
	if err := s.validateRuns(s.Runs); err != nil {
		return err
	}
	for v, runs := range s.RunsByVersion {
		if len(runs) != len(s.Runs) {
			return fmt.Errorf("runs_by_version %s: %d runs, want %d like runs", v, len(runs), len(s.Runs))
		}
		if err := s.validateRuns(runs); err != nil {
			return fmt.Errorf("runs_by_version %s: %w", v, err)
		}
	}
	if s.ResumeProof != "" && len(s.Runs) < 2 {
		return errors.New("resume_proof needs at least two runs")
	}
	for v := range s.Variants {
		if strings.ContainsAny(v, "/. ") {
			return fmt.Errorf("variant %q: bad name", v)
		}
	}
	return nil
}

func (s *Scenario) validateRuns(runs []Run) error {
	for i, r := range runs {
		if r.Prompt == "" {
			return fmt.Errorf("run %d: empty prompt", i)
		}
		if r.Resume && i == 0 {
			return fmt.Errorf("run 0: resume needs a previous run")
		}
		if r.StreamInput && s.Provider != "claude" {
			return fmt.Errorf("run %d: stream_input is Claude only", i)
		}
		if len(r.Turns) > 0 && (s.Provider == "codex" || s.Provider == "gemini-cli") {
			return fmt.Errorf("run %d: %s has one turn per run", i, s.Provider)
		}
		if len(r.ThreadParams) > 0 && s.Provider != "appserver" {
			return fmt.Errorf("run %d: thread_params is app-server only", i)
		}
		if r.Interrupt != nil && (s.Provider == "codex" || s.Provider == "gemini-cli") {
			return fmt.Errorf("run %d: %s has no protocol interrupt; use signal", i, s.Provider)
		}
		if r.Interrupt != nil && s.Provider == "claude" && !r.StreamInput {
			return fmt.Errorf("run %d: Claude interrupt needs stream_input", i)
		}
		for _, t := range []*Trigger{r.Interrupt, r.Signal} {
			if t != nil && t.OnRequest < 1 {
				return fmt.Errorf("run %d: trigger on_request must be >= 1", i)
			}
		}
		if r.Signal != nil {
			if _, ok := signals[r.Signal.Name]; !ok {
				return fmt.Errorf("run %d: unknown signal %q", i, r.Signal.Name)
			}
		}
		for _, d := range r.Decisions {
			if !validDecision(s.Provider, d) {
				return fmt.Errorf("run %d: decision %q not valid for %s", i, d, s.Provider)
			}
		}
	}
	return nil
}

func validDecision(provider, d string) bool {
	switch provider {
	case "claude":
		return d == "allow" || d == "deny"
	case "appserver":
		return d == "accept" || d == "acceptForSession" || d == "decline" || d == "cancel"
	case "acp":
		return acpDecisions[d]
	}
	return false
}

// Case is one recording: a scenario in one variant.
type Case struct {
	*Scenario
	Variant string
	// Name is the directory name of the recording.
	Name string
	// Extra are the variant's arguments.
	Extra []string
}

// Cases expands the variants of s, sorted by name.
func (s *Scenario) Cases() []Case {
	if len(s.Variants) == 0 {
		return []Case{{Scenario: s, Name: s.Name}}
	}
	var out []Case
	for v, args := range s.Variants {
		name := s.Name
		if v != "" {
			name += "-" + v
		}
		out = append(out, Case{Scenario: s, Variant: v, Name: name, Extra: args})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// RepliesFor returns the replies scripted for a CLI.
func (s *Scenario) RepliesFor(cli CLI) []mock.Reply {
	for k, rs := range s.RepliesByVersion {
		if cli.Is(k) {
			return rs
		}
	}
	return s.Replies
}

// RunsFor returns the runs scripted for a CLI.
func (s *Scenario) RunsFor(cli CLI) []Run {
	for k, rs := range s.RunsByVersion {
		if cli.Is(k) {
			return rs
		}
	}
	return s.Runs
}

// For reports whether s is recorded with the CLI.
func (s *Scenario) For(cli CLI) bool {
	if len(s.Versions) == 0 {
		return true
	}
	for _, v := range s.Versions {
		if cli.Is(v) {
			return true
		}
	}
	return false
}
