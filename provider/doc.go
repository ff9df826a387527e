// Package provider is the registry of the providers agentwire parses: one
// Provider value per provider, holding its name, session codec, content
// detection, the parser options a case's meta.json implies (Switches), how
// a capture is parsed with an observer called before each frame, and the
// wire findings of that parse. corpus, fuzz, cmd/agentwire and the drivers
// reach a provider only through Lookup, All and Detect: they never name
// one, list its event types or switch over providers.
//
// # Adding a provider
//
// Adding a provider takes exactly these steps, and no edit anywhere else
// in the tree (corpus, fuzz, cmd and the drivers take it from the
// registry; TestNoProviderNames fails if one of them names it):
//
//  1. A parser package, parsers/<name>: a pure state machine (driver,
//     one framing package and internal/ only; see DESIGN.md) with
//     New(sink, Options), Feed(frame), FeedError(err) and
//     Finish(driver.Outcome) (driver.Response, error), whose Options has
//     Observe func(offset int64, line int), and a Parse function that runs
//     internal/feed's one loop (feed.Parse): framing with a tee, the
//     sink-error policy, RawStreams, the observer. A model API's parser
//     frames the HTTP body with sse.Reader and reads the status and
//     content type from the Capture.
//  2. One row file here, provider/<name>.go, whose init calls Register
//     with a Provider: Name (the corpus directory and --provider value),
//     Summary, Codec, Detect (DetectJSONLines helps for JSON lines;
//     where its evidence overlaps an older row's, Refines names that row
//     instead of editing it),
//     Switches for options that meta.json implies (each with FromMeta,
//     and Detect for a bare capture), Parse, which maps Input to the
//     parser's Options and calls the parser's Parse, Framing (when Stdout
//     is not JSON lines), and Fuzz: Fuzz.Target when the default name
//     ("Fuzz" and the name's words capitalized: gemini-cli gives
//     FuzzGeminiCli) is not wanted or begins another target's name
//     (FuzzGeminiCli begins with FuzzGemini, gemini's, so Register
//     refuses it: compile_native_go_fuzzer could build neither), and
//     Fuzz.Words for dictionary words the recordings do not show.
//  3. Its corpus cases under corpus/<name>/ (recorded, or written by
//     hand with their golden.json; see corpus/README.md); they replay
//     with corpus.Test.
//  4. go generate ./fuzz: Go declares a fuzz target only as a function of
//     its own name, so the generator writes the provider's FuzzX into
//     fuzz/targets/targets.go and fuzz/fuzz_test.go from fuzz.Targets,
//     which lists every registered provider; it also writes the seeds
//     (testdata/fuzz/FuzzX/ from corpus/<name>/) and the dictionary
//     (dict/<name>.dict). fuzz's TestGeneratedTargets and TestRegistry
//     fail until it has run. The OSS-Fuzz / ClusterFuzzLite build and
//     make engine-run list the targets from the same registry.
//
// `agentwire parse`/`check`, the fuzz oracle (fuzz.CheckParser),
// FuzzChunking and FuzzCodec then take it from the registry. A test in
// this package feeds every registered provider a sink that fails at its
// first, second, middle and last emission and requires RawStreams.Stdout
// to stay byte-equal to the input and the sink error to be returned; a
// new row is held to it at once.
//
// # What a case's meta.json gives
//
// Meta is the decoded meta.json. The process outcome is Meta.Outcome
// (exit_code, signal, timed_out, and sent_signal or interrupt for a
// cancellation); a model API's response has http_status and content_type,
// which go into Capture.HTTPStatus and Capture.ContentType. Checkpoint
// session data is Meta.SessionData (the cwd). Provider-specific options
// are Switches: Switch.FromMeta reads them from Meta (argv, version), and
// Parse finds them in Input.Settings by name. A run that resumes another
// gets that run's checkpoint state in Input.Resume.
//
// # Parse's contract
//
// Parse reads Stdout (and Stdin, Stderr) to their ends, even after the sink
// failed; the sink error is then returned in Parsed.Err and nothing more
// is fed to the parser. Observe is called with each frame's offset and
// line before it is fed, and with (len(stdout), 0) before Finish, so that
// every emission can be placed at the frame that caused it.
//
// The registry is safe for concurrent use; Register is meant for init
// functions and tests.
package provider
