package webhook

import "fmt"

// An object is measured before it is decoded: decoding, and the chart's
// checks of every key (each unknown key is compared with every key the
// chart defines), cost in proportion to its values and to its keys' text,
// so an object within the request's bound in bytes could still hold
// hundreds of thousands of keys and take seconds and hundreds of MiB to
// judge. A pool or a catalog release, its metadata and status included,
// holds a few hundred values; these bounds are tens of times that, and an
// object beyond them is a bad request that says which bound it passed.
const (
	maxDepth     = 64
	maxValues    = 4096
	maxNameBytes = 64 << 10
)

// measure reports an error naming the bound a JSON text passes: more than
// maxValues values, keys of more than maxNameBytes bytes in all, or more
// than maxDepth objects and arrays nested. It reads raw once and
// allocates nothing; it does not validate the text (decoding does).
func measure(raw []byte) error {
	var object [maxDepth]bool // per open container: whether it is an object
	depth, values, names := 0, 1, 0
	name := false // the next string is a key
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if name {
				names += j - i - 1
				name = false
				if names > maxNameBytes {
					return fmt.Errorf("its keys hold more than %d bytes in all", maxNameBytes)
				}
			}
			i = j
		case '{', '[':
			if depth == maxDepth {
				return fmt.Errorf("it nests objects and arrays more than %d deep", maxDepth)
			}
			object[depth] = c == '{'
			depth++
			name = c == '{'
			if c == '[' && !emptyArray(raw[i+1:]) {
				values++
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
			name = false
		case ':':
			values++
		case ',':
			if depth > 0 && object[depth-1] {
				name = true
			} else {
				values++
			}
		}
		if values > maxValues {
			return fmt.Errorf("it holds more than %d values", maxValues)
		}
	}
	return nil
}

// emptyArray reports whether the text after a '[' closes it at once.
func emptyArray(rest []byte) bool {
	for _, c := range rest {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == ']'
	}
	return true
}
