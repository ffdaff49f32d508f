package blosc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The oracle tests compare with numcodecs' C implementation (c-blosc 1.x)
// through Debian's python3-numcodecs. They fail, rather than skip, when it
// is missing: passing without the oracle would prove nothing.

const (
	oraclePython = "/usr/bin/python3"
	oracleScript = "testdata/numcodecs_oracle.py"
	oracleHint   = "apt-get update; apt-get install -y --no-install-recommends python3-numcodecs"
)

func requireNumcodecs(t *testing.T) {
	t.Helper()
	out, err := exec.Command(oraclePython, "-c", "import numcodecs.blosc").CombinedOutput()
	if err != nil {
		t.Fatalf("numcodecs oracle unavailable: %s cannot import numcodecs (%v: %s)\ninstall it with: %s",
			oraclePython, err, bytes.TrimSpace(out), oracleHint)
	}
}

func runOracle(t *testing.T, mode, dir string) []byte {
	t.Helper()
	cmd := exec.Command(oraclePython, oracleScript, mode, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle %s: %v\n%s", mode, err, stderr.String())
	}
	return out
}

type oracleCase struct {
	Name      string `json:"name"`
	CName     string `json:"cname"`
	Shuffle   int    `json:"shuffle"`
	TypeSize  int    `json:"typesize"`
	CLevel    int    `json:"clevel"`
	BlockSize int    `json:"blocksize"`
	NBytes    int    `json:"nbytes"`
}

type oracleManifest struct {
	CNames []string     `json:"cnames"`
	Cases  []oracleCase `json:"cases"`
}

func readCase(t *testing.T, dir, name string) (frame, raw []byte) {
	t.Helper()
	frame, err := os.ReadFile(filepath.Join(dir, name+".frame"))
	if err == nil {
		raw, err = os.ReadFile(filepath.Join(dir, name+".raw"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return frame, raw
}

// TestNumcodecsFramesDecode decodes frames numcodecs wrote for every
// cname, shuffle, type size and a range of sizes and levels.
func TestNumcodecsFramesDecode(t *testing.T) {
	t.Parallel() // mostly waiting for python
	requireNumcodecs(t)
	dir := t.TempDir()
	runOracle(t, "encode", dir)
	var m oracleManifest
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(m.CNames) < 5 || len(m.Cases) < 500 {
		t.Fatalf("oracle produced too little: cnames %v, %d cases", m.CNames, len(m.Cases))
	}
	seen := map[string]int{}
	for _, c := range m.Cases {
		frame, raw := readCase(t, dir, c.Name)
		h, err := ParseHeader(frame)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		seen[h.Compressor().String()]++
		for _, par := range []int{1, 2} {
			dec := &Codec{cfg: DefaultConfig(), par: par}
			got, err := dec.DecodeBytes(context.Background(), specOf(len(raw), "uint8"), frame)
			if err != nil || !bytes.Equal(got, raw) {
				t.Fatalf("%+v (flags %#x, blocksize %d): decode: %v", c, h.Flags, h.BlockSize, err)
			}
		}
	}
	if len(seen) != len(m.CNames)-1 { // lz4 and lz4hc share a code
		t.Fatalf("inner codecs seen %v, numcodecs has %v", seen, m.CNames)
	}
	t.Logf("decoded %d numcodecs frames: %v", len(m.Cases), seen)
}

// oracleData returns deterministic test inputs of several characters.
func oracleData(seed, n int) []byte {
	rng := rand.New(rand.NewPCG(uint64(seed), 99))
	b := make([]byte, n)
	switch seed % 4 {
	case 0: // noise
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	case 1: // runs over a small alphabet
		for i := 0; i < n; {
			v, run := byte(rng.IntN(4)), 1+rng.IntN(60)
			for ; run > 0 && i < n; run-- {
				b[i] = v
				i++
			}
		}
	case 2: // smooth float32 signal with noisy low bits
		copy(b, smoothFloats(n/4+1))
	default: // mostly zeros, a few values
		for range n / 97 {
			b[rng.IntN(n)] = byte(rng.Uint32())
		}
	}
	return b
}

// TestGoFramesDecodeInNumcodecs has numcodecs decode frames this package
// wrote, including sizes that are not a multiple of the type size, every
// level, forced block sizes and multi-block frames.
func TestGoFramesDecodeInNumcodecs(t *testing.T) {
	t.Parallel()
	requireNumcodecs(t)
	dir := t.TempDir()
	var m oracleManifest
	sizes := []int{1, 7, 100, 127, 128, 131, 1000, 4099, 40001, 200003, 1<<20 + 5}
	i := 0
	for _, cname := range allCNames {
		for sh := range 3 {
			for _, ts := range []int{1, 2, 3, 4, 8, 16} {
				for _, n := range sizes {
					if n > 300000 && (ts == 3 || ts == 16 || sh == 0) {
						continue
					}
					c := oracleCase{Name: fmt.Sprintf("g%04d", i), CName: cname, Shuffle: sh, TypeSize: ts, CLevel: i % 10, NBytes: n}
					if i%7 == 3 {
						c.BlockSize = []int{1, 256, 1000, 4096, 65536}[i%5]
					}
					writeGoCase(t, dir, c, oracleData(i, n))
					m.Cases = append(m.Cases, c)
					i++
				}
			}
		}
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var report struct {
		Checked  int `json:"checked"`
		Failures []struct {
			Name  string `json:"name"`
			Error string `json:"error"`
		} `json:"failures"`
	}
	if err := json.Unmarshal(runOracle(t, "decode", dir), &report); err != nil {
		t.Fatal(err)
	}
	for _, f := range report.Failures {
		t.Errorf("numcodecs failed on %s: %s", f.Name, f.Error)
	}
	if report.Checked != len(m.Cases) {
		t.Fatalf("numcodecs checked %d of %d frames", report.Checked, len(m.Cases))
	}
	t.Logf("numcodecs decoded %d frames written here", report.Checked)
}

func writeGoCase(t *testing.T, dir string, c oracleCase, data []byte) {
	t.Helper()
	cfg := Config{CName: c.CName, CLevel: c.CLevel, Shuffle: Shuffle(c.Shuffle), TypeSize: c.TypeSize, BlockSize: c.BlockSize}
	enc := &Codec{cfg: cfg, par: 1 + len(c.Name)%2}
	frame, err := enc.EncodeBytes(context.Background(), specOf(len(data), "uint8"), data)
	if err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
	if err := os.WriteFile(filepath.Join(dir, c.Name+".frame"), frame, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, c.Name+".raw"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
