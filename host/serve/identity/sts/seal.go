package sts

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// A session token is base64url (no padding) of
//
//	version (1 byte) | key id (4 bytes) | nonce (12 bytes) | AES-256-GCM ciphertext and tag
//
// The plaintext is the session (see encodeSession). The additional data is
// a label, the version and key id, and the access key id the token was
// issued with: a token presented with any other access key id fails GCM's
// check, as an altered one does, so the binding needs no comparison of
// ours.
//
// The nonce is random: with 96 bits, sealing 2^32 tokens under one key
// keeps the chance of a repeat negligible; rotate keys long before that.
const (
	tokenVersion = 1
	keyIDSize    = 4
	headerSize   = 1 + keyIDSize
	nonceSize    = 12
	tagSize      = 16
	// maxToken bounds the token text opened: five fields of maxField
	// bytes and their framing fit well within it.
	maxToken = 16 << 10
	aadLabel = "zarrgw sts session token\x00"
)

// b64 is strict: a token whose last character carries bits the bytes do
// not use would otherwise decode to the same bytes as the original, and an
// altered token must never open.
var b64 = base64.RawURLEncoding.Strict()

// sealKey is one configured seal key, derived.
type sealKey struct {
	id   [keyIDSize]byte
	aead cipher.AEAD
}

// deriveKey derives the AES-256 key and the key id of a configured seal
// key with HKDF-SHA256 (RFC 5869), under distinct labels: the key id is
// public (in every token), and names the key without revealing anything
// of it. Rotating by putting a new key first does not change the old
// keys' ids, so tokens they sealed still find them.
func deriveKey(secret string) (*sealKey, error) {
	secret = strings.TrimSpace(secret)
	if len(secret) < MinSealKey {
		return nil, fmt.Errorf("%d characters; a seal key must be at least %d characters of a random secret (for example: openssl rand -hex 32)", len(secret), MinSealKey)
	}
	key, err := hkdf.Key(sha256.New, []byte(secret), nil, "zarrgw sts seal key v1", 32)
	if err != nil {
		return nil, fmt.Errorf("deriving the seal key: %w", err)
	}
	id, err := hkdf.Key(sha256.New, []byte(secret), nil, "zarrgw sts seal key id v1", keyIDSize)
	if err != nil {
		return nil, fmt.Errorf("deriving the seal key id: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("making the cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("making the cipher: %w", err)
	}
	sk := &sealKey{aead: aead}
	copy(sk.id[:], id)
	return sk, nil
}

// additionalData is what GCM authenticates beside the ciphertext.
func additionalData(header []byte, accessKeyID string) []byte {
	ad := make([]byte, 0, len(aadLabel)+len(header)+len(accessKeyID))
	ad = append(ad, aadLabel...)
	ad = append(ad, header...)
	return append(ad, accessKeyID...)
}

// seal makes the session token of s with the first key.
func (is *Issuer) seal(s Session) (string, error) {
	k := is.keys[0]
	body, err := encodeSession(s)
	if err != nil {
		return "", err
	}
	out := make([]byte, headerSize+nonceSize, headerSize+nonceSize+len(body)+tagSize)
	out[0] = tokenVersion
	copy(out[1:headerSize], k.id[:])
	nonce := out[headerSize:]
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("making a nonce: %w", err)
	}
	out = k.aead.Seal(out, nonce, body, additionalData(out[:headerSize], s.AccessKeyID))
	return b64.EncodeToString(out), nil
}

// open authenticates and decodes a token; every failure is ErrInvalid.
func (is *Issuer) open(accessKeyID, token string) (Session, error) {
	switch {
	case token == "":
		return Session{}, fmt.Errorf("%w: no session token", ErrInvalid)
	case len(token) > maxToken:
		return Session{}, fmt.Errorf("%w: longer than %d characters", ErrInvalid, maxToken)
	case strings.IndexFunc(token, func(r rune) bool { return !isBase64URL(r) }) >= 0:
		// the decoder would skip line breaks; an altered token must not open
		return Session{}, fmt.Errorf("%w: not base64url", ErrInvalid)
	}
	raw, err := b64.DecodeString(token)
	if err != nil {
		return Session{}, fmt.Errorf("%w: not base64url", ErrInvalid)
	}
	if len(raw) < headerSize+nonceSize+tagSize {
		return Session{}, fmt.Errorf("%w: too short", ErrInvalid)
	}
	if raw[0] != tokenVersion {
		return Session{}, fmt.Errorf("%w: unknown version %d", ErrInvalid, raw[0])
	}
	header, nonce, sealed := raw[:headerSize], raw[headerSize:headerSize+nonceSize], raw[headerSize+nonceSize:]
	ad := additionalData(header, accessKeyID)
	found := false
	for _, k := range is.keys {
		if !bytes.Equal(k.id[:], header[1:]) {
			continue
		}
		// two keys could share an id (one chance in 2^32): each is tried
		found = true
		body, err := k.aead.Open(nil, nonce, sealed, ad)
		if err != nil {
			continue
		}
		s, err := decodeSession(body)
		if err != nil {
			// authentic, so sealed by this code: a bug, never a client's doing
			return Session{}, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		s.AccessKeyID = accessKeyID
		return s, nil
	}
	if !found {
		return Session{}, fmt.Errorf("%w: sealed by no configured key", ErrInvalid)
	}
	return Session{}, fmt.Errorf("%w: altered, or presented with another access key id", ErrInvalid)
}

func isBase64URL(r rune) bool {
	return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_'
}

// encodeSession is the plaintext of a token: the expiry and issue time as
// Unix seconds (8 bytes each, big-endian), then principal, subject,
// provider, session name and secret, each as a uvarint length and its
// bytes. The access key id is not in it: it is in the additional data.
func encodeSession(s Session) ([]byte, error) {
	fields := []string{s.Principal, s.Subject, s.Provider, s.SessionName, s.SecretAccessKey}
	n := 16
	for _, f := range fields {
		if len(f) > maxField {
			return nil, fmt.Errorf("sealing a session: a field of %d bytes (at most %d)", len(f), maxField)
		}
		n += binary.MaxVarintLen64 + len(f)
	}
	b := make([]byte, 0, n)
	b = binary.BigEndian.AppendUint64(b, uint64(s.Expiration.Unix()))
	b = binary.BigEndian.AppendUint64(b, uint64(s.IssuedAt.Unix()))
	for _, f := range fields {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b, nil
}

var errBody = errors.New("the sealed session does not decode")

// decodeSession reads what encodeSession wrote, all of it and nothing
// more.
func decodeSession(b []byte) (Session, error) {
	if len(b) < 16 {
		return Session{}, errBody
	}
	s := Session{
		Expiration: time.Unix(int64(binary.BigEndian.Uint64(b)), 0).UTC(),
		IssuedAt:   time.Unix(int64(binary.BigEndian.Uint64(b[8:])), 0).UTC(),
	}
	b = b[16:]
	for _, dst := range []*string{&s.Principal, &s.Subject, &s.Provider, &s.SessionName, &s.SecretAccessKey} {
		n, used := binary.Uvarint(b)
		if used <= 0 || n > uint64(len(b)-used) {
			return Session{}, errBody
		}
		*dst = string(b[used : used+int(n)])
		b = b[used+int(n):]
	}
	if len(b) != 0 {
		return Session{}, errBody
	}
	return s, nil
}
