package routing

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
)

// maxMessage bounds a message on the route link, a forwarded claim or its
// answer. The largest claim is one with candidates.MaxReserved reserved
// addresses or ranges, well under it; a peer that announces more is cut
// off before anything of the message is read.
const maxMessage = 1 << 20

// maxInFlight bounds the forwarded claims of one connection that the owner
// is making at once; it reads the next one when one is answered.
const maxInFlight = 256

// ErrTooLarge means that a message on the route link is over maxMessage.
var ErrTooLarge = fmt.Errorf("routing: a message over %d bytes", maxMessage)

// errFraming means that a message did not fill its frame exactly.
var errFraming = errors.New("routing: a message does not fill its frame")

// Messages go in frames: a 4-byte big-endian length, then that many bytes
// of gob, which hold a request's or an answer's header and body. The gob
// stream of a connection runs on from frame to frame (types are sent
// once), but a frame is read only once its length is known to be bounded,
// and a message may not run past its frame.

// A frameReader reads the frames of a connection, one at a time.
type frameReader struct {
	r    *bufio.Reader
	left int // bytes of the current frame not read yet
}

// next starts the next frame.
func (f *frameReader) next() error {
	if f.left != 0 {
		return errFraming
	}
	var h [4]byte
	if _, err := io.ReadFull(f.r, h[:]); err != nil {
		return err
	}
	n := binary.BigEndian.Uint32(h[:])
	if n > maxMessage {
		return ErrTooLarge
	}
	f.left = int(n)
	return nil
}

// Read reads from the current frame, never past it.
func (f *frameReader) Read(p []byte) (int, error) {
	if f.left == 0 {
		return 0, errFraming
	}
	if len(p) > f.left {
		p = p[:f.left]
	}
	n, err := f.r.Read(p)
	f.left -= n
	return n, err
}

// ReadByte makes frameReader an io.ByteReader, so that gob reads it
// without a buffer of its own, which would read past the frame.
func (f *frameReader) ReadByte() (byte, error) {
	if f.left == 0 {
		return 0, errFraming
	}
	b, err := f.r.ReadByte()
	if err == nil {
		f.left--
	}
	return b, err
}

// end checks that the current frame was read to its end.
func (f *frameReader) end() error {
	if f.left != 0 {
		return errFraming
	}
	return nil
}

// A frameWriter writes messages of a connection, each in one frame.
type frameWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	enc *gob.Encoder // encodes into buf
}

func newFrameWriter(w io.Writer) *frameWriter {
	f := &frameWriter{w: bufio.NewWriter(w)}
	f.enc = gob.NewEncoder(&f.buf)
	return f
}

// write writes header and body in one frame. An error leaves the gob
// stream broken: the connection is to be closed.
func (f *frameWriter) write(header, body any) error {
	f.buf.Reset()
	if err := f.enc.Encode(header); err != nil {
		return err
	}
	if err := f.enc.Encode(body); err != nil {
		return err
	}
	if f.buf.Len() > maxMessage {
		return ErrTooLarge
	}
	var h [4]byte
	binary.BigEndian.PutUint32(h[:], uint32(f.buf.Len()))
	f.w.Write(h[:])
	f.w.Write(f.buf.Bytes())
	return f.w.Flush()
}

// A serverCodec serves net/rpc requests in frames; it reads the next
// request only while fewer than maxInFlight are being made.
type serverCodec struct {
	conn  net.Conn
	fr    frameReader
	dec   *gob.Decoder
	fw    *frameWriter
	slots chan struct{}
}

func newServerCodec(conn net.Conn) *serverCodec {
	c := &serverCodec{conn: conn, fr: frameReader{r: bufio.NewReader(conn)}, fw: newFrameWriter(conn), slots: make(chan struct{}, maxInFlight)}
	c.dec = gob.NewDecoder(&c.fr)
	return c
}

func (c *serverCodec) ReadRequestHeader(r *rpc.Request) error {
	c.slots <- struct{}{}
	if err := c.fr.next(); err != nil {
		<-c.slots
		return err
	}
	if err := c.dec.Decode(r); err != nil {
		<-c.slots
		return err
	}
	return nil
}

// ReadRequestBody reads the body (see readBody).
func (c *serverCodec) ReadRequestBody(body any) error { return readBody(c.conn, &c.fr, c.dec, body) }

// WriteResponse is called once per request read, one call at a time.
func (c *serverCodec) WriteResponse(r *rpc.Response, body any) error {
	defer func() { <-c.slots }()
	if err := c.fw.write(r, body); err != nil {
		c.conn.Close()
		return err
	}
	return nil
}

func (c *serverCodec) Close() error { return c.conn.Close() }

// A clientCodec sends net/rpc requests in frames.
type clientCodec struct {
	conn net.Conn
	fr   frameReader
	dec  *gob.Decoder
	fw   *frameWriter
}

func newClientCodec(conn net.Conn) *clientCodec {
	c := &clientCodec{conn: conn, fr: frameReader{r: bufio.NewReader(conn)}, fw: newFrameWriter(conn)}
	c.dec = gob.NewDecoder(&c.fr)
	return c
}

// WriteRequest is called one call at a time; an error closes the
// connection, so that every call on it fails (and is made locally).
func (c *clientCodec) WriteRequest(r *rpc.Request, body any) error {
	if err := c.fw.write(r, body); err != nil {
		c.conn.Close()
		return err
	}
	return nil
}

func (c *clientCodec) ReadResponseHeader(r *rpc.Response) error {
	if err := c.fr.next(); err != nil {
		return err
	}
	return c.dec.Decode(r)
}

func (c *clientCodec) ReadResponseBody(body any) error { return readBody(c.conn, &c.fr, c.dec, body) }

// readBody reads the body of a message, which ends its frame; on an error
// it closes the connection, whose gob stream cannot be trusted to be in
// step any more (net/rpc would go on reading it).
func readBody(conn net.Conn, fr *frameReader, dec *gob.Decoder, body any) error {
	err := dec.Decode(body)
	if err == nil {
		err = fr.end()
	}
	if err != nil {
		conn.Close()
	}
	return err
}

func (c *clientCodec) Close() error { return c.conn.Close() }
