package ndjson

// Decoder is the push face of the framing: bytes go in through Write, and
// each frame comes out through the function given to [NewDecoder], in
// input order. It runs the same split logic as [Reader].
type Decoder struct {
	m      machine
	opts   Options
	emit   func(Frame, error) error
	err    error
	closed bool
}

// NewDecoder returns a Decoder that calls emit for every frame (with a nil
// error) and for every line longer than MaxLineSize (with a zero Frame and
// a *LineError wrapping ErrLineTooLong). The Frame's Data and Raw are
// valid only until emit returns. If emit returns an error, the Write or
// Close that called it stops and returns that error, and so does every
// later call.
func NewDecoder(opts Options, emit func(Frame, error) error) *Decoder {
	d := &Decoder{emit: emit, opts: opts}
	d.m.init(opts)
	return d
}

// Write feeds p to the Decoder: p goes to the Tee first, then every frame
// it completes is emitted before Write returns. Write never retains p. It
// returns len(p) and nil, or the Tee's or emit's error (sticky), or
// ErrClosed after Close.
func (d *Decoder) Write(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.closed {
		return 0, ErrClosed
	}
	if d.opts.Tee != nil {
		if err := writeTee(d.opts.Tee, p); err != nil {
			d.err = err
			return 0, err
		}
	}
	n := 0
	for n < len(p) {
		sp := d.m.space()
		k := copy(sp, p[n:])
		d.m.w += k
		n += k
		if err := d.drain(); err != nil {
			d.err = err
			return n, err
		}
	}
	return n, nil
}

// Close marks the end of the input: a final line without LF is emitted
// (Unterminated set), or its ErrLineTooLong report. Close returns nil or
// emit's error; after Close, Write returns ErrClosed. Calling Close again
// returns the same result and emits nothing.
func (d *Decoder) Close() error {
	if d.err != nil || d.closed {
		return d.err
	}
	d.closed = true
	d.m.eof = true
	if err := d.drain(); err != nil {
		d.err = err
	}
	return d.err
}

// Reset makes d decode a new stream with opts and emit, as NewDecoder
// would, but keeping the buffer it has grown.
func (d *Decoder) Reset(opts Options, emit func(Frame, error) error) {
	d.opts, d.emit = opts, emit
	d.m.init(opts)
	d.err, d.closed = nil, false
}

func (d *Decoder) drain() error {
	for {
		err, ok := d.m.next()
		if !ok {
			return nil
		}
		if e := d.emit(d.m.f, err); e != nil {
			return e
		}
		if poisonBorrowed {
			d.m.poison()
		}
	}
}
