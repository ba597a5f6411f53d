package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// An API token is "pvt_" followed by 32 random bytes in unpadded base64url;
// only its SHA-256 is stored.
const (
	tokenPrefix = "pvt_"
	tokenBytes  = 32
)

// NewToken returns a new API token and the hash to store.
func NewToken() (token string, hash []byte) {
	b := make([]byte, tokenBytes)
	rand.Read(b) // Never fails: it crashes the program instead.
	token = tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, hashToken(token)
}

// hashToken returns the SHA-256 of token, the key it is stored under.
func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// wellFormedToken reports whether token looks like one NewToken returns.
func wellFormedToken(token string) bool {
	encoded, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok || len(encoded) != base64.RawURLEncoding.EncodedLen(tokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.Strict().DecodeString(encoded)
	return err == nil
}
