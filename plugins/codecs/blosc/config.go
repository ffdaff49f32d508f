package blosc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Compressor is the inner compressor code stored in a frame's flags.
type Compressor uint8

// Inner compressor codes (the frame's flags >> 5). lz4hc writes LZ4 streams
// and shares the LZ4 code.
const (
	BloscLZ Compressor = 0
	LZ4     Compressor = 1
	Snappy  Compressor = 2
	Zlib    Compressor = 3
	Zstd    Compressor = 4
)

func (c Compressor) known() bool { return c <= Zstd }

func (c Compressor) String() string {
	switch c {
	case BloscLZ:
		return "blosclz"
	case LZ4:
		return "lz4"
	case Snappy:
		return "snappy"
	case Zlib:
		return "zlib"
	case Zstd:
		return "zstd"
	}
	return "code" + strconv.Itoa(int(c))
}

// cnames maps every accepted cname to its frame code.
var cnames = map[string]Compressor{
	"blosclz": BloscLZ, "lz4": LZ4, "lz4hc": LZ4, "snappy": Snappy, "zlib": Zlib, "zstd": Zstd,
}

// Shuffle is the filter applied before compression.
type Shuffle int8

const (
	// AutoShuffle (numcodecs -1) is bit shuffle for 1-byte items and byte
	// shuffle otherwise, decided when encoding.
	AutoShuffle Shuffle = -1
	NoShuffle   Shuffle = 0
	ByteShuffle Shuffle = 1
	BitShuffle  Shuffle = 2
)

var shuffleNames = map[string]Shuffle{"noshuffle": NoShuffle, "shuffle": ByteShuffle, "bitshuffle": BitShuffle}

func (s Shuffle) String() string {
	switch s {
	case NoShuffle:
		return "noshuffle"
	case BitShuffle:
		return "bitshuffle"
	}
	return "shuffle"
}

// resolve turns AutoShuffle into a concrete filter for a type size.
func (s Shuffle) resolve(typeSize int) Shuffle {
	if s != AutoShuffle {
		return s
	}
	if typeSize == 1 {
		return BitShuffle
	}
	return ByteShuffle
}

// Config is a blosc codec configuration. Zero TypeSize means "take it from
// the array's data type when encoding"; zero BlockSize means automatic.
type Config struct {
	CName     string
	CLevel    int
	Shuffle   Shuffle
	TypeSize  int
	BlockSize int
}

// DefaultConfig is numcodecs' default: lz4, level 5, byte shuffle.
func DefaultConfig() Config {
	return Config{CName: "lz4", CLevel: 5, Shuffle: ByteShuffle}
}

// ParseConfig reads either configuration form: v3 (shuffle as a name, with
// typesize) or numcodecs/v2 (shuffle as -1..2, no typesize). Absent keys
// take numcodecs' defaults; unknown keys (such as "id") are ignored.
func ParseConfig(raw json.RawMessage) (Config, error) {
	cfg := DefaultConfig()
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return cfg, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Config{}, fmt.Errorf("blosc configuration: %w", err)
	}
	if err := parseFields(m, &cfg); err != nil {
		return Config{}, fmt.Errorf("blosc configuration: %w", err)
	}
	return cfg, cfg.validate()
}

func parseFields(m map[string]json.RawMessage, cfg *Config) error {
	if v, ok := m["cname"]; ok {
		if err := json.Unmarshal(v, &cfg.CName); err != nil {
			return fmt.Errorf("cname: %w", err)
		}
	}
	for key, dst := range map[string]*int{"clevel": &cfg.CLevel, "typesize": &cfg.TypeSize, "blocksize": &cfg.BlockSize} {
		if v, ok := m[key]; ok && string(v) != "null" {
			n, err := parseInt(v)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			*dst = n
		}
	}
	if v, ok := m["shuffle"]; ok {
		s, err := parseShuffle(v)
		if err != nil {
			return err
		}
		cfg.Shuffle = s
	}
	return nil
}

// parseInt accepts a JSON integer, also written as an integral float.
func parseInt(v json.RawMessage) (int, error) {
	s := string(bytes.TrimSpace(v))
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		return int(n), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, fmt.Errorf("not an integer: %s", s)
	}
	return int(f), nil
}

// parseShuffle accepts a v3 name or a numcodecs integer.
func parseShuffle(v json.RawMessage) (Shuffle, error) {
	var name string
	if json.Unmarshal(v, &name) == nil {
		s, ok := shuffleNames[name]
		if !ok {
			return 0, fmt.Errorf("shuffle: unknown value %q", name)
		}
		return s, nil
	}
	n, err := parseInt(v)
	if err != nil || n < -1 || n > 2 {
		return 0, fmt.Errorf("shuffle: want noshuffle, shuffle, bitshuffle or -1..2, got %s", v)
	}
	return Shuffle(n), nil
}

func (c Config) validate() error {
	if _, ok := cnames[c.CName]; !ok {
		return fmt.Errorf("blosc configuration: unknown cname %q", c.CName)
	}
	if c.CLevel < 0 || c.CLevel > 9 {
		return fmt.Errorf("blosc configuration: clevel %d outside 0..9", c.CLevel)
	}
	if c.Shuffle < AutoShuffle || c.Shuffle > BitShuffle {
		return fmt.Errorf("blosc configuration: invalid shuffle %d", c.Shuffle)
	}
	if c.TypeSize < 0 || c.BlockSize < 0 {
		return fmt.Errorf("blosc configuration: negative typesize or blocksize")
	}
	return nil
}

// v3Config is the configuration written to v3 metadata.
type v3Config struct {
	CName     string `json:"cname"`
	CLevel    int    `json:"clevel"`
	Shuffle   string `json:"shuffle"`
	TypeSize  int    `json:"typesize,omitempty"`
	BlockSize int    `json:"blocksize"`
}

// marshal renders c in the v3 form. An automatic shuffle becomes the
// filter it would pick for the configured type size ("shuffle" when the
// size is not known yet); a type size not known yet is omitted.
func (c Config) marshal() json.RawMessage {
	b, err := json.Marshal(v3Config{
		CName: c.CName, CLevel: c.CLevel, Shuffle: c.Shuffle.resolve(c.TypeSize).String(),
		TypeSize: c.TypeSize, BlockSize: c.BlockSize,
	})
	if err != nil {
		panic(err) // plain struct of strings and ints: cannot fail
	}
	return b
}
