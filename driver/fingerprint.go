package driver

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
)

// fingerprintTag versions the canonical encoding. Changing the encoding in
// any way changes every fingerprint and must bump it.
const fingerprintTag = "agentwire/config-fingerprint/v1"

// CanonicalConfigFingerprint returns "sha256:" followed by the hex SHA-256 of
// a canonical binary encoding of domain and v. It is the building block of
// SessionConfigFingerprinter implementations: domain names the driver and
// codec contract (for example "codex/exec-driver/v1;session-codec/v1") and v
// is the construction configuration.
//
// The encoding is deterministic across processes and platforms:
//   - every exported struct field takes part, zero or not, under its name,
//     so adding a field to a configuration changes the fingerprint;
//   - map entries are sorted by their encoded key, so map order is ignored;
//     two keys with the same encoding are an error;
//   - nil and empty slices and maps encode the same; a nil pointer differs
//     from a pointer to a zero value; pointers and interfaces are followed,
//     and an interface records its dynamic type;
//   - a value whose type implements encoding.TextMarshaler (time.Time, for
//     one) is encoded by its text;
//   - integers of every width encode as 64-bit values of their signedness;
//     floats by their IEEE-754 bits, with -0 folded into 0.
//
// Values that cannot be encoded stably are errors, never silently skipped:
// functions, channels, unsafe pointers, uintptrs, complex numbers, NaN,
// structs with unexported fields (other than TextMarshalers), and cycles.
// The error is a *FingerprintError naming the path and type; it never
// contains a value or map key, so secrets in a configuration do not leak
// into logs.
func CanonicalConfigFingerprint(domain string, v any) (string, error) {
	e := fpEncoder{onPath: map[uintptr]bool{}}
	e.buf.WriteString(fingerprintTag)
	e.buf.WriteByte(0)
	e.str(domain)
	if err := e.value(reflect.ValueOf(v), "$"); err != nil {
		return "", err
	}
	sum := sha256.Sum256(e.buf.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// FingerprintError reports a value CanonicalConfigFingerprint cannot encode.
// Path is a selector path from the root ("$.Models[2].Env[?]"; map keys are
// shown as "?"), Type the Go type, Kind its reflect kind and Reason why it
// was refused.
type FingerprintError struct {
	Path   string
	Type   string
	Kind   reflect.Kind
	Reason string
}

func (e *FingerprintError) Error() string {
	return fmt.Sprintf("driver: config fingerprint: %s (%s, kind %s): %s", e.Path, e.Type, e.Kind, e.Reason)
}

type fpEncoder struct {
	buf    bytes.Buffer
	onPath map[uintptr]bool // pointers, maps and slices on the current path
}

var textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()

func (e *fpEncoder) fail(v reflect.Value, path, reason string) error {
	typ := "<nil>"
	kind := reflect.Invalid
	if v.IsValid() {
		typ, kind = v.Type().String(), v.Kind()
	}
	return &FingerprintError{Path: path, Type: typ, Kind: kind, Reason: reason}
}

func (e *fpEncoder) str(s string) {
	e.buf.Write(binary.AppendUvarint(nil, uint64(len(s))))
	e.buf.WriteString(s)
}

func (e *fpEncoder) u64(tag byte, x uint64) {
	e.buf.WriteByte(tag)
	e.buf.Write(binary.BigEndian.AppendUint64(nil, x))
}

// enter marks a reference on the current path and reports a cycle.
func (e *fpEncoder) enter(v reflect.Value, path string) (func(), error) {
	p := v.Pointer()
	if p == 0 {
		return func() {}, nil
	}
	if e.onPath[p] {
		return nil, e.fail(v, path, "cycle")
	}
	e.onPath[p] = true
	return func() { delete(e.onPath, p) }, nil
}

func (e *fpEncoder) value(v reflect.Value, path string) error {
	if !v.IsValid() {
		e.buf.WriteByte('n')
		return nil
	}
	if v.Type().Implements(textMarshalerType) && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		text, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return e.fail(v, path, "MarshalText failed")
		}
		e.buf.WriteByte('t')
		e.str(v.Type().String())
		e.str(string(text))
		return nil
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.buf.WriteString("b1")
		} else {
			e.buf.WriteString("b0")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.u64('i', uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.u64('u', v.Uint())
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) {
			return e.fail(v, path, "NaN has no stable encoding")
		}
		if f == 0 {
			f = 0 // fold -0
		}
		e.u64('f', math.Float64bits(f))
	case reflect.String:
		e.buf.WriteByte('s')
		e.str(v.String())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice {
			leave, err := e.enter(v, path)
			if err != nil {
				return err
			}
			defer leave()
		}
		e.u64('l', uint64(v.Len()))
		for i := range v.Len() {
			if err := e.value(v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		leave, err := e.enter(v, path)
		if err != nil {
			return err
		}
		defer leave()
		type entry struct{ k, v []byte }
		entries := make([]entry, 0, v.Len())
		it := v.MapRange()
		for it.Next() {
			sub := fpEncoder{onPath: e.onPath}
			if err := sub.value(it.Key(), path+"[?]"); err != nil {
				return err
			}
			k := slices.Clone(sub.buf.Bytes())
			sub.buf.Reset()
			if err := sub.value(it.Value(), path+"[?]"); err != nil {
				return err
			}
			entries = append(entries, entry{k, slices.Clone(sub.buf.Bytes())})
		}
		slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.k, b.k) })
		for i := 1; i < len(entries); i++ {
			if bytes.Equal(entries[i-1].k, entries[i].k) {
				return e.fail(v, path, "two map keys have the same encoding")
			}
		}
		e.u64('l', uint64(len(entries))) // same tag as a slice: nil, empty map and empty slice agree
		for _, en := range entries {
			e.buf.Write(en.k)
			e.buf.Write(en.v)
		}
	case reflect.Pointer:
		if v.IsNil() {
			e.buf.WriteByte('n')
			return nil
		}
		leave, err := e.enter(v, path)
		if err != nil {
			return err
		}
		defer leave()
		e.buf.WriteByte('p')
		return e.value(v.Elem(), path)
	case reflect.Interface:
		if v.IsNil() {
			e.buf.WriteByte('n')
			return nil
		}
		e.buf.WriteByte('I')
		e.str(v.Elem().Type().String())
		return e.value(v.Elem(), path)
	case reflect.Struct:
		t := v.Type()
		e.u64('S', uint64(t.NumField()))
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return e.fail(v, path+"."+f.Name, "unexported field cannot be read stably")
			}
			e.str(f.Name)
			if err := e.value(v.Field(i), path+"."+f.Name); err != nil {
				return err
			}
		}
	default: // Func, Chan, UnsafePointer, Uintptr, Complex64, Complex128
		return e.fail(v, path, "kind has no stable encoding")
	}
	return nil
}
