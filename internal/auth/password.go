package auth

import (
	"crypto/rand"
	"fmt"
	"sync"

	"github.com/alexedwards/argon2id"
)

// passwordParams are the argon2id parameters of new hashes: OWASP's
// recommendation of 19 MiB, two passes, one lane (about 50 ms). A stored
// hash carries its own parameters, so raising them later keeps old hashes
// valid.
var passwordParams = &argon2id.Params{
	Memory:      19 * 1024,
	Iterations:  2,
	Parallelism: 1,
	SaltLength:  16,
	KeyLength:   32,
}

// HashPassword returns the argon2id hash of password, in the PHC string
// format ("$argon2id$v=19$m=…").
func HashPassword(password string) (string, error) {
	hash, err := argon2id.CreateHash(password, passwordParams)
	if err != nil {
		return "", fmt.Errorf("auth: unable to hash the password: %w", err)
	}
	return hash, nil
}

// CheckPassword reports whether password matches hash, comparing in
// constant time. An error means that hash is not an argon2id hash.
func CheckPassword(password, hash string) (bool, error) {
	match, err := argon2id.ComparePasswordAndHash(password, hash)
	if err != nil {
		return false, fmt.Errorf("auth: unable to check the password: %w", err)
	}
	return match, nil
}

// dummyHash is checked against when the user is unknown, so that a
// login attempt takes as long whether or not the name exists.
var dummyHash = sync.OnceValues(func() (string, error) {
	return HashPassword(rand.Text())
})

// randomPassword returns 20 random characters of the base32 alphabet, 100
// bits.
func randomPassword() string {
	return rand.Text()[:20]
}
