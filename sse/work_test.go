package sse

// The linear-work tests (TestLinearWork, the properties and FuzzDecoder)
// read machine.work; production builds do not count.
func init() { trackWork = true }
