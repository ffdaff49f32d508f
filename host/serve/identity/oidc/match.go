package oidc

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Match reports whether claims have every claim of want, by the rule of
// the package documentation (top-level name first, then dotted path;
// equal string, number or boolean by its JSON text, or a list containing
// one). An empty want matches any claims.
func Match(claims map[string]any, want map[string]string) bool {
	for name, value := range want {
		v, ok := lookup(claims, name)
		if !ok || !matches(v, value) {
			return false
		}
	}
	return true
}

// lookup finds claim name: a top-level claim of that name, or else the
// value at the dotted path.
func lookup(claims map[string]any, name string) (any, bool) {
	if v, ok := claims[name]; ok {
		return v, true
	}
	if !strings.Contains(name, ".") {
		return nil, false
	}
	var cur any = claims
	for part := range strings.SplitSeq(name, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// matches compares one claim's value with a wanted value.
func matches(v any, want string) bool {
	switch v := v.(type) {
	case []any:
		return slices.ContainsFunc(v, func(e any) bool {
			s, ok := scalarText(e)
			return ok && s == want
		})
	case []string:
		return slices.Contains(v, want)
	}
	s, ok := scalarText(v)
	return ok && s == want
}

// scalarText is a string, number or boolean as a wanted value is written:
// a string as itself, the others as their JSON text.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case json.Number:
		return v.String(), true
	case float64, int, int64:
		// Claims decoded without UseNumber, or built by hand.
		b, err := json.Marshal(v)
		return string(b), err == nil
	}
	return "", false
}

// LooksLikeJWT reports whether token has the form of a JWS in compact
// form: three base64url parts (the signature may be empty), the first a
// JSON object with an "alg". A bearer token that does not is no JWT and
// can be taken for an opaque (static) token without trying to verify it.
func LooksLikeJWT(token string) bool {
	_, err := headerAlg(token)
	return err == nil
}

// headerAlg returns the "alg" of a token that looks like a JWT.
func headerAlg(token string) (string, error) {
	if strings.Count(token, ".") != 2 {
		return "", errors.New("not three parts")
	}
	header, rest, _ := strings.Cut(token, ".")
	payload, signature, _ := strings.Cut(rest, ".")
	if header == "" || payload == "" || !base64URL(payload) || !base64URL(signature) {
		return "", errors.New("not base64url parts")
	}
	b, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		return "", err
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if err := json.Unmarshal(b, &h); err != nil || h.Alg == "" {
		return "", errors.New("no alg in the header")
	}
	return h.Alg, nil
}

// base64URL reports whether s is made of the unpadded base64url alphabet.
func base64URL(s string) bool {
	for _, c := range []byte(s) {
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
