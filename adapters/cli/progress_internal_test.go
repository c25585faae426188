package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// progressDump is a state file as kubectl prints it: a List whose items
// begin at "- " lines, two more documents, and lines that only look like
// an object's start ("kind" deeper, inside a value, without its space).
const progressDump = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: a}
- kind: DataVolume
  metadata:
    labels:
      kind: not-an-object
---
kind: StorageClass
metadata: {name: replicated}
parameters: {x: "kind: no"}
---
kindly: no
 kind: no
---
kind: CSIDriver
kind: X`

// TestCountingReaderCountsObjectsInOrder: however the decoder's reads cut
// the file (a line's start split across two reads included), the objects
// counted are the lines that begin one, and the bytes counted are the
// file's, once: a stretch read again adds nothing.
func TestCountingReaderCountsObjectsInOrder(t *testing.T) {
	const want = 6 // the List, its two items, the StorageClass, the last two lines (one without its newline)
	for chunk := 1; chunk <= len(progressDump); chunk++ {
		cr := newCountingReader(strings.NewReader(progressDump), int64(len(progressDump)), true)
		buf := make([]byte, chunk)
		var got bytes.Buffer
		for off := int64(0); off < cr.Size(); {
			n, err := cr.ReadAt(buf, off)
			got.Write(buf[:n])
			off += int64(n)
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
		}
		_, err := cr.ReadAt(buf[:min(chunk, 10)], 0) // read again
		require.NoError(t, err)
		require.Equal(t, progressDump, got.String(), "chunk %d", chunk)
		assert.Equal(t, int64(want), cr.objects.Load(), "chunk %d", chunk)
		assert.Equal(t, int64(len(progressDump)), cr.n.Load(), "chunk %d", chunk)
	}
}

// TestCountingReaderReadsAsAReader: Read and Seek see the bytes as a
// bytes.Reader does, so a decoder that streams gets the whole file.
func TestCountingReaderReadsAsAReader(t *testing.T) {
	cr := newCountingReader(strings.NewReader(progressDump), int64(len(progressDump)), true)
	head := make([]byte, 7)
	_, err := io.ReadFull(cr, head)
	require.NoError(t, err)
	pos, err := cr.Seek(0, io.SeekCurrent)
	require.NoError(t, err)
	assert.Equal(t, int64(7), pos)
	rest, err := io.ReadAll(cr)
	require.NoError(t, err)
	assert.Equal(t, progressDump, string(head)+string(rest))
	end, err := cr.Seek(0, io.SeekEnd)
	require.NoError(t, err)
	assert.Equal(t, int64(len(progressDump)), end)
	_, err = cr.Seek(-1, io.SeekStart)
	assert.Error(t, err)
	_, err = cr.Seek(0, 7)
	assert.Error(t, err, "an invalid whence")
}

// TestCountingReaderCountsOnlyForProgress: without a progress line to
// print, the decoder's reads are not scanned.
func TestCountingReaderCountsOnlyForProgress(t *testing.T) {
	cr := newCountingReader(strings.NewReader(progressDump), int64(len(progressDump)), false)
	_, err := io.ReadAll(cr)
	require.NoError(t, err)
	assert.Zero(t, cr.objects.Load())
	assert.Zero(t, cr.n.Load())
}
