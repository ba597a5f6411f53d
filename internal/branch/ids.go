package branch

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"time"
)

// newObjectID returns a new object id: a UUID of version 7, whose first 48
// bits are the time in milliseconds, so that objects listed in id order are
// listed about in the order they were created, and ids made together are
// neighbours in the indexes.
func newObjectID(now time.Time) string {
	var u [16]byte
	rand.Read(u[6:])
	ms := uint64(now.UnixMilli())
	binary.BigEndian.PutUint16(u[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(u[2:6], uint32(ms))
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return formatUUID(u)
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
