// Command fuzzseeds regenerates the seed corpora of package fuzz from the
// recordings under corpus/, in Go's corpus format, and the libFuzzer
// dictionaries of each protocol. Run it from the fuzz directory (go
// generate ./fuzz does):
//
//	go run ./cmd/fuzzseeds -corpus ../corpus -out testdata/fuzz -dict dict
//
// Generated seeds are named seed-<sha256[:16]>; files with other names
// (committed crashers, regression inputs) are left alone. With -raw DIR it
// instead writes the seed inputs of every target as raw files under
// DIR/<Target>/, and with -oss-fuzz DIR it writes what OSS-Fuzz and
// ClusterFuzzLite expect next to each fuzzer binary: the seed corpus
// archive <binary>_seed_corpus.zip and the dictionary <binary>.dict, the
// binary of FuzzSSE being fuzz_sse. The archive holds every seed as the
// libFuzzer input that hands the fuzz function exactly that seed
// (fuzz.LibFuzzerInput: a 4-byte length first, as go-118-fuzz-build
// decodes a []byte argument).
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agentwire/agentwire/fuzz"
	"github.com/agentwire/agentwire/provider"
)

// maxSeed bounds a seed's size: bigger recordings keep their first and
// last lines (the start-up and the terminal events) within it, so that
// executions stay fast and seeds still reach the end of a run.
const maxSeed = 8 << 10

func main() {
	log.SetFlags(0)
	corpusDir := flag.String("corpus", "../corpus", "the recordings (corpus/<provider>/<cli>@<version>/<case>/)")
	out := flag.String("out", "testdata/fuzz", "where to write testdata/fuzz/<Target>/seed-* files")
	dictDir := flag.String("dict", "dict", "where to write the .dict files (empty: none)")
	raw := flag.String("raw", "", "write raw seed files under DIR/<Target>/ from the Go-format corpus in -out instead")
	zipDir := flag.String("oss-fuzz", "", "write DIR/<binary>_seed_corpus.zip (raw seeds from -out) and DIR/<binary>.dict (from -dict) for every target instead")
	list := flag.Bool("targets", false, "print \"<Target> <binary>\" for every end-to-end target and exit")
	flag.Parse()
	if *list {
		for _, t := range fuzz.Targets {
			fmt.Println(t.Name, fuzz.BinaryName(t.Name))
		}
		return
	}
	if *zipDir != "" {
		if err := ossFuzz(*out, *dictDir, *zipDir); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *raw != "" {
		if err := exportRaw(*out, *raw); err != nil {
			log.Fatal(err)
		}
		return
	}
	seeds, dicts, err := collect(*corpusDir)
	if err != nil {
		log.Fatal(err)
	}
	for target, ins := range seeds {
		if err := writeSeeds(filepath.Join(*out, target), ins); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-14s %d seeds\n", target, len(ins))
	}
	if *dictDir != "" {
		for name, words := range dicts {
			if err := writeDict(filepath.Join(*dictDir, name+".dict"), words); err != nil {
				log.Fatal(err)
			}
		}
	}
}

// lineCut returns the whole lines of b that fit in maxSeed/2 bytes from
// its start and from its end.
func lineCut(b []byte) []byte {
	if len(b) <= maxSeed {
		return b
	}
	head := b[:maxSeed/2]
	if i := bytes.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i+1]
	}
	tail := b[len(b)-maxSeed/2:]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
		tail = tail[i+1:]
	}
	return append(append([]byte{}, head...), tail...)
}

var idRE = regexp.MustCompile(`"(?:thread_id|session_id|threadId|conversationId)"\s*:\s*"([^"\\]{1,80})"`)

type words map[string]bool

func (w words) add(s ...string) {
	for _, x := range s {
		if x != "" && len(x) <= 64 {
			w[x] = true
		}
	}
}

// collect reads every recording and returns the seeds per target and the
// dictionary words per dictionary. A recording under corpus/<provider>/
// seeds the provider's parser target (fuzz.Target.Provider) and the
// target of the provider's framing (provider.Provider.Framing); its JSON
// keys and discriminator values, and the provider's Fuzz.Words, go into
// the provider's dictionary (fuzz.Target.Dict).
func collect(root string) (map[string][][]byte, map[string]words, error) {
	seeds := map[string][][]byte{}
	dicts := map[string]words{}
	byProvider := map[string]fuzz.Target{}
	for _, t := range fuzz.Targets {
		dicts[t.Dict] = words{}
		if t.Provider != "" {
			byProvider[t.Provider] = t
		}
	}
	framingTarget := map[provider.Framing]string{provider.FramingSSE: "FuzzSSE", provider.FramingJSONLines: "FuzzNDJSON", provider.FramingJSONRPC: "FuzzJSONRPC"}
	jsonWords := []string{`{"`, `":`, `"}`, "\n", "\r\n", "\xef\xbb\xbf", "null", "true", "false", "[", "]", `\u0000`, `"type"`}
	dicts["sse"].add("data:", "data: ", "event:", "event: ", "id:", "retry:", ":", "\n\n", "\r\n", "\r", "\xef\xbb\xbf", ": ping\n\n", "message")
	for _, d := range []string{"ndjson", "jsonrpc", "all"} {
		dicts[d].add(jsonWords...)
	}
	for _, p := range provider.All() {
		dicts[byProvider[p.Name].Dict].add(jsonWords...)
		dicts[byProvider[p.Name].Dict].add(p.Fuzz.Words...)
	}
	dicts["jsonrpc"].add(`"jsonrpc":"2.0"`, `"id"`, `"method"`, `"params"`, `"result"`, `"error"`, `"code"`, `"message"`, `"data"`)
	dicts["codec"].add("\x00", "cwd", "workspace_id", "profile_fingerprint", "prompt_bundle_key")
	for _, p := range provider.All() {
		if p.Codec != nil {
			// The prefix of the provider's own checkpoint Data keys.
			dicts["codec"].add(p.Name + ".")
		}
	}
	var ids []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (d.Name() != "stdout" && d.Name() != "stdin") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		p, ok := provider.Lookup(strings.Split(filepath.ToSlash(rel), "/")[0])
		if !ok {
			return nil
		}
		target := byProvider[p.Name]
		dict := dicts[target.Dict]
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		seed := lineCut(b)
		if d.Name() == "stdout" {
			seeds[target.Name] = append(seeds[target.Name], seed)
			if len(seed) <= 4<<10 {
				seeds["FuzzChunking"] = append(seeds["FuzzChunking"], seed)
			}
		}
		// Stdout and the client side are streams of the framing.
		seeds[framingTarget[p.Framing]] = append(seeds[framingTarget[p.Framing]], seed)
		rpc := p.Framing == provider.FramingJSONRPC
		var sse bytes.Buffer
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if p.Framing == provider.FramingSSE {
				// The JSON of an SSE body is on its data lines.
				line = bytes.TrimRight(line, "\r")
				if e, ok := bytes.CutPrefix(line, []byte("event: ")); ok {
					dict.add(string(e))
					continue
				}
				line = bytes.TrimPrefix(line, []byte("data: "))
			}
			for _, m := range idRE.FindAllSubmatch(line, -1) {
				ids = append(ids, string(m[1]))
			}
			var v any
			if json.Unmarshal(line, &v) != nil {
				continue
			}
			walk(v, dict, dicts["all"], dicts["jsonrpc"], rpc)
			if m, ok := v.(map[string]any); ok && sse.Len() < maxSeed/2 {
				// An SSE rendition of the line, named by its type:
				// Claude's stream_event lines carry the Anthropic SSE
				// events verbatim.
				ev, data := m["type"], any(m)
				if e, ok := m["event"].(map[string]any); ok && m["type"] == "stream_event" {
					ev, data = e["type"], e
				}
				if s, ok := ev.(string); ok {
					dicts["sse"].add(s)
					j, _ := json.Marshal(data)
					fmt.Fprintf(&sse, "event: %s\ndata: %s\n\n", s, j)
				}
			}
		}
		if sse.Len() > 0 {
			seeds["FuzzSSE"] = append(seeds["FuzzSSE"], sse.Bytes())
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// Synthetic seeds for SSE edge cases the recordings do not hold.
	seeds["FuzzSSE"] = append(seeds["FuzzSSE"],
		[]byte(""), []byte("\xef\xbb\xbfdata: a\r\n\r\n"), []byte(": ping\n\nid: 1\nretry: 300\ndata: x\ndata: y\n\n"),
		[]byte("data: no blank line at the end"), []byte("id: a\x00b\nevent: e\ndata\n\r\n"), []byte(strings.Repeat("data: "+strings.Repeat("x", 100)+"\n", 8)+"\n"))
	seeds["FuzzNDJSON"] = append(seeds["FuzzNDJSON"], []byte(""), []byte("\r"), []byte("\xef\xbb\xbf{}\r\n\n{"),
		[]byte(strings.Repeat("[", 100)+"\n"), []byte(`{"type":"a\u0000"}`+"\n"+strings.Repeat("x", 1100)+"\n{}"))
	seeds["FuzzJSONRPC"] = append(seeds["FuzzJSONRPC"], []byte(`{"jsonrpc":"2.0","id":-1,"method":"m","params":[]}`+"\n"+`[{"id":1,"result":null},{"method":"n"}]`+"\n"+`{"id":null,"error":{"code":1,"message":"x"}}`+"\n"+`{"id":1.5,"result":{}}`+"\n"))
	// Codec seeds: resume ids seen in the recordings with guard inputs.
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for i, id := range ids {
		if i >= 16 {
			break
		}
		dicts["codec"].add(id)
		seeds["FuzzCodec"] = append(seeds["FuzzCodec"], []byte(id+"\x00display\x00cwd\x00/work\x00workspace_id\x00ws"))
	}
	seeds["FuzzCodec"] = append(seeds["FuzzCodec"], []byte(""), []byte("\x00\x00cwd\x00"), []byte("r\x00\x00codex.usage.input_tokens\x0012\x00profile_fingerprint\x00p"))
	return seeds, dicts, nil
}

// walk adds the object keys and the discriminator values of v to the
// dictionaries.
func walk(v any, ds ...any) {
	rpc := ds[len(ds)-1].(bool)
	add := func(s ...string) {
		for i, d := range ds[:len(ds)-1] {
			if i == 2 && !rpc {
				continue
			}
			d.(words).add(s...)
		}
	}
	var rec func(v any, depth int)
	rec = func(v any, depth int) {
		if depth > 6 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				add(strconv.Quote(k))
				if s, ok := e.(string); ok && (k == "type" || k == "subtype" || k == "method" || k == "status" || k == "role" || k == "stop_reason") {
					add(strconv.Quote(s))
				}
				rec(e, depth+1)
			}
		case []any:
			for _, e := range x {
				rec(e, depth+1)
			}
		}
	}
	rec(v, 0)
}

// writeSeeds replaces the generated seeds in dir with ins.
func writeSeeds(dir string, ins [][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "seed-*"))
	for _, f := range old {
		os.Remove(f)
	}
	for _, in := range ins {
		content := fuzz.CorpusFile(in)
		sum := sha256.Sum256(content)
		name := "seed-" + hex.EncodeToString(sum[:])[:16]
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeDict writes words in libFuzzer's dictionary format.
func writeDict(path string, w words) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	list := make([]string, 0, len(w))
	for s := range w {
		list = append(list, s)
	}
	sort.Strings(list)
	var b strings.Builder
	fmt.Fprintf(&b, "# libFuzzer dictionary for the %s fuzz targets, generated by fuzz/cmd/fuzzseeds from corpus/.\n", strings.TrimSuffix(filepath.Base(path), ".dict"))
	for _, s := range list {
		b.WriteString("\"")
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '"' || c == '\\':
				fmt.Fprintf(&b, "\\%c", c)
			case c < 0x20 || c >= 0x7f:
				fmt.Fprintf(&b, "\\x%02X", c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteString("\"\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// exportRaw writes the []byte argument of every corpus file under
// in/<Target>/ to out/<Target>/<name>.
func exportRaw(in, out string) error {
	targets, err := os.ReadDir(in)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if !t.IsDir() {
			continue
		}
		files, _ := os.ReadDir(filepath.Join(in, t.Name()))
		if err := os.MkdirAll(filepath.Join(out, t.Name()), 0o755); err != nil {
			return err
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(in, t.Name(), f.Name()))
			if err != nil {
				return err
			}
			data, err := fuzz.ParseCorpusFile(b)
			if err != nil {
				return fmt.Errorf("%s/%s: %v", t.Name(), f.Name(), err)
			}
			if err := os.WriteFile(filepath.Join(out, t.Name(), f.Name()), data, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// ossFuzz writes the seed archives (seeds encoded by fuzz.LibFuzzerInput)
// and dictionaries of every target.
func ossFuzz(in, dictDir, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, t := range fuzz.Targets {
		files, err := os.ReadDir(filepath.Join(in, t.Name))
		if err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(out, fuzz.BinaryName(t.Name)+"_seed_corpus.zip"))
		if err != nil {
			return err
		}
		zw := zip.NewWriter(f)
		n := 0
		for _, e := range files {
			b, err := os.ReadFile(filepath.Join(in, t.Name, e.Name()))
			if err != nil {
				return err
			}
			data, err := fuzz.ParseCorpusFile(b)
			if err != nil {
				return fmt.Errorf("%s/%s: %v", t.Name, e.Name(), err)
			}
			w, err := zw.Create(e.Name())
			if err != nil {
				return err
			}
			if _, err := w.Write(fuzz.LibFuzzerInput(data)); err != nil {
				return err
			}
			n++
		}
		if err := zw.Close(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		d, err := os.ReadFile(filepath.Join(dictDir, t.Dict+".dict"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, fuzz.BinaryName(t.Name)+".dict"), d, 0o644); err != nil {
			return err
		}
		fmt.Printf("%-14s %-16s %4d seeds, dict %s.dict\n", t.Name, fuzz.BinaryName(t.Name), n, t.Dict)
	}
	return nil
}
