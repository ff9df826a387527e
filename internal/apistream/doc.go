// Package apistream holds what the model-API stream parsers
// (parsers/anthropic, parsers/openai, parsers/gemini) share beyond
// internal/feed and internal/emit: how a response body is told apart from
// an error document, the bookkeeping of malformed and unknown input, the
// terminal payload taken from a frame, and the accumulation of a stream's
// text. Each parser keeps its own wire format; what is here is the part
// that is the same for an HTTP response of any provider.
package apistream
