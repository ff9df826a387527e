package record

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommittedRecordings checks the committed corpus: every scenario is
// recorded for every CLI version it targets, every recording belongs to a
// scenario, and every run has stdout, stderr, requests.jsonl and a meta.json
// that agrees with its place in the tree.
func TestCommittedRecordings(t *testing.T) {
	scens, err := Load("../scenarios")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Case{}
	for _, cli := range DefaultCLIs {
		for _, s := range scens {
			if s.Provider != cli.Provider || !s.For(cli) {
				continue
			}
			for _, c := range s.Cases() {
				want[casePath(cli, c.Name)] = c
			}
		}
	}
	got := map[string]bool{}
	for _, cli := range DefaultCLIs {
		dirs, _ := filepath.Glob(filepath.Join("..", cli.Provider, cli.Dir(), "*"))
		for _, d := range dirs {
			got[casePath(cli, filepath.Base(d))] = true
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: recording without a scenario", p)
		}
	}
	for p, c := range want {
		if !got[p] {
			t.Errorf("%s: scenario not recorded (make record RECORD_RUN='%s')", p, p)
			continue
		}
		dir := filepath.Join("..", filepath.FromSlash(p))
		runs := []string{dir}
		cli := cliOf(p)
		if len(c.RunsFor(cli)) > 1 {
			runs = nil
			var cm CaseMeta
			readMeta(t, filepath.Join(dir, "meta.json"), &cm)
			if len(cm.Runs) != len(c.RunsFor(cli)) {
				t.Errorf("%s: %d runs recorded, scenario has %d", p, len(cm.Runs), len(c.RunsFor(cli)))
			}
			if c.ResumeProof != "" && (cm.ResumeProof == nil || cm.ResumeProof.Marker != c.ResumeProof) {
				t.Errorf("%s: resume proof missing", p)
			}
			for _, r := range cm.Runs {
				runs = append(runs, filepath.Join(dir, r))
			}
		}
		for _, rd := range runs {
			for _, f := range []string{"stdout", "stderr", "requests.jsonl"} {
				if _, err := os.Stat(filepath.Join(rd, f)); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
			var m Meta
			readMeta(t, filepath.Join(rd, "meta.json"), &m)
			if m.Provider+"/"+m.CLI+"@"+m.Version+"/"+caseName(m) != p {
				t.Errorf("%s: meta.json says %s/%s@%s/%s", p, m.Provider, m.CLI, m.Version, caseName(m))
			}
			if len(m.Argv) == 0 || m.Argv[0] != "<CLI>" {
				t.Errorf("%s: argv[0] = %q, want the <CLI> placeholder", p, m.Argv)
			}
			_, err := os.Stat(filepath.Join(rd, "stdin"))
			if m.Stdin != (err == nil) {
				t.Errorf("%s: meta stdin=%v but stdin file present=%v", p, m.Stdin, err == nil)
			}
			if m.TimedOut {
				t.Errorf("%s: recorded run timed out", p)
			}
		}
	}
}

func cliOf(path string) CLI {
	for _, c := range DefaultCLIs {
		if strings.HasPrefix(path, c.Provider+"/"+c.Dir()+"/") {
			return c
		}
	}
	return CLI{}
}

func caseName(m Meta) string {
	if m.Variant == "" {
		return m.Scenario
	}
	return m.Scenario + "-" + m.Variant
}

func readMeta(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}

// TestLiveRecord records one case with the real CLI and verifies it against
// the committed corpus. It runs only with AGENTWIRE_LIVE=1 (it takes about
// 15 s), when the CLI is installed and a private network namespace can be
// created; otherwise it skips.
func TestLiveRecord(t *testing.T) {
	if os.Getenv("AGENTWIRE_LIVE") != "1" {
		t.Skip("set AGENTWIRE_LIVE=1 to record with the real CLI")
	}
	cache, _ := filepath.Abs("../../.cache/npm")
	cli := DefaultCLIs[0]
	if _, err := cli.Bin(cache); err != nil {
		t.Skipf("CLI not installed: %v", err)
	}
	if err := CheckUnshare(); err != nil {
		t.Skipf("no network namespace: %v", err)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	out := t.TempDir()
	cmd := exec.Command("go", "run", "../../cmd/agentwire-record", "-cache", cache, "-scenarios", "../scenarios",
		"-out", out, "-run", "^codex/codex@"+cli.Version+"/text$")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("record: %v\n%s", err, b)
	}
	d, err := Verify("..", out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d != "" {
		t.Errorf("drift against the committed corpus:\n%s", d)
	}
}
