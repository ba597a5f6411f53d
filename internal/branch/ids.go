package branch

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// newObjectID returns a new object id: a UUID of version 7, whose first 48
// bits are the time in milliseconds and next 12 a counter within that
// millisecond (RFC 9562, method 1), so that the ids one process makes rise
// in the order it makes them: objects listed in id order are listed in the
// order they were created, and ids made together are neighbours in the
// indexes.
func newObjectID(now time.Time) string {
	var u [16]byte
	rand.Read(u[8:])
	ms, seq := idClock.next(uint64(now.UnixMilli()))
	binary.BigEndian.PutUint16(u[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(u[2:6], uint32(ms))
	binary.BigEndian.PutUint16(u[6:8], 0x7000|seq) // version 7
	u[8] = u[8]&0x3f | 0x80                        // RFC 9562 variant
	return formatUUID(u)
}

// idClock is the millisecond and counter of the last id made.
var idClock monotonic

type monotonic struct {
	mu  sync.Mutex
	ms  uint64
	seq uint16
}

// next returns the millisecond and counter of a new id made at ms: ms and
// a counter of 0 when ms is later than the last id's, else the last id's
// millisecond and the counter after its (the next millisecond once the
// 12-bit counter is spent), so that no id repeats or goes back when the
// clock does.
func (m *monotonic) next(ms uint64) (uint64, uint16) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case ms > m.ms:
		m.ms, m.seq = ms, 0
	case m.seq == 0x0fff:
		m.ms, m.seq = m.ms+1, 0
	default:
		m.seq++
	}
	return m.ms, m.seq
}

// parseObjectID returns s as an object id (a UUID written in lowercase with
// its dashes), or false when s is not a UUID.
func parseObjectID(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	var u [16]byte
	j := 0
	for i := 0; i < 36; {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return "", false
			}
			i++
			continue
		}
		if _, err := hex.Decode(u[j:j+1], []byte(s[i:i+2])); err != nil {
			return "", false
		}
		i += 2
		j++
	}
	return formatUUID(u), true
}

func formatUUID(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], u[10:16])
	return string(b[:])
}
