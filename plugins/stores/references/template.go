package references

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/zarrgw/zarrgw/core/checked"
)

// expand substitutes the {{ expression }} parts of s, as kerchunk's
// version 1 renders its templates and gen entries with jinja2. vars holds
// the template strings and a gen entry's dimension values; an expression
// is integer arithmetic over them (+ - * // %, parentheses, unary minus)
// or a variable's name. Anything else jinja could say is refused rather
// than guessed, naming the expression; so is arithmetic that overflows,
// and a result longer than the bytes left in b.
func expand(s string, vars map[string]value, b *budget) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var out strings.Builder
	for {
		start := strings.Index(s, "{{")
		if start < 0 {
			out.WriteString(s)
			return out.String(), nil
		}
		end := strings.Index(s[start:], "}}")
		if end < 0 {
			return "", fmt.Errorf("template %.60q: {{ without }}", s)
		}
		out.WriteString(s[:start])
		expr := s[start+2 : start+end]
		v, err := evaluate(expr, vars, b)
		if err != nil {
			return "", fmt.Errorf("template %.60q: %w", s, err)
		}
		text := v.String()
		if !b.fits(int64(out.Len()) + int64(len(text))) {
			return "", fmt.Errorf("template %.60q: %w", s, b.tooLong())
		}
		out.WriteString(text)
		s = s[start+end+2:]
	}
}

// value is a template variable or the result of an expression: an
// integer or a string.
type value struct {
	isInt bool
	n     int64
	s     string
}

func intValue(n int64) value  { return value{isInt: true, n: n} }
func strValue(s string) value { return value{s: s} }

func (v value) String() string {
	if v.isInt {
		return strconv.FormatInt(v.n, 10)
	}
	return v.s
}

// evaluate parses and computes one expression.
func evaluate(expr string, vars map[string]value, b *budget) (value, error) {
	p := &parser{toks: tokenize(expr), vars: vars, budget: b}
	v, err := p.sum()
	if err != nil {
		return value{}, fmt.Errorf("{{%s}}: %w", expr, err)
	}
	if p.pos != len(p.toks) {
		return value{}, fmt.Errorf("{{%s}}: unexpected %q", expr, p.toks[p.pos])
	}
	return v, nil
}

func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case unicode.IsDigit(c) || unicode.IsLetter(c) || c == '_':
			j := i
			for j < len(s) && (unicode.IsDigit(rune(s[j])) || unicode.IsLetter(rune(s[j])) || s[j] == '_') {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case strings.HasPrefix(s[i:], "//"):
			toks = append(toks, "//")
			i += 2
		default:
			toks = append(toks, s[i:i+1])
			i++
		}
	}
	return toks
}

type parser struct {
	toks   []string
	pos    int
	vars   map[string]value
	budget *budget // bounds the strings "+" makes
	depth  int     // of nested parentheses and unary minuses
}

// maxDepth bounds the nesting of an expression: the parser recurses once
// per level, and a set of a million "(" must not exhaust the stack.
const maxDepth = 64

func (p *parser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

// sum := product (("+" | "-") product)*
func (p *parser) sum() (value, error) {
	v, err := p.product()
	for err == nil && (p.peek() == "+" || p.peek() == "-") {
		op := p.toks[p.pos]
		p.pos++
		var w value
		if w, err = p.product(); err == nil {
			v, err = p.arith(op, v, w)
		}
	}
	return v, err
}

// product := unary (("*" | "//" | "%") unary)*
func (p *parser) product() (value, error) {
	v, err := p.unary()
	for err == nil && (p.peek() == "*" || p.peek() == "//" || p.peek() == "%" || p.peek() == "/") {
		op := p.toks[p.pos]
		p.pos++
		var w value
		if w, err = p.unary(); err == nil {
			v, err = p.arith(op, v, w)
		}
	}
	return v, err
}

// unary := "-" unary | primary
func (p *parser) unary() (value, error) {
	if p.peek() != "-" {
		return p.primary()
	}
	p.pos++
	if err := p.nest(); err != nil {
		return value{}, err
	}
	defer p.unnest()
	v, err := p.unary()
	if err != nil {
		return v, err
	}
	if !v.isInt {
		return value{}, fmt.Errorf("minus of the string %.60q", v.s)
	}
	n, ok := checked.Sub(0, v.n)
	if !ok {
		return value{}, overflowf(0, "-", v.n)
	}
	return intValue(n), nil
}

// nest enters a level of nesting, refusing one past maxDepth; unnest
// leaves it.
func (p *parser) nest() error {
	if p.depth++; p.depth > maxDepth {
		return fmt.Errorf("nested more than %d deep", maxDepth)
	}
	return nil
}

func (p *parser) unnest() { p.depth-- }

// primary := integer | name | "(" sum ")"
func (p *parser) primary() (value, error) {
	t := p.peek()
	p.pos++
	switch {
	case t == "":
		return value{}, fmt.Errorf("expression ends early")
	case t == "(":
		if err := p.nest(); err != nil {
			return value{}, err
		}
		defer p.unnest()
		v, err := p.sum()
		if err == nil && p.peek() != ")" {
			err = fmt.Errorf("( without )")
		}
		p.pos++
		return v, err
	case unicode.IsDigit(rune(t[0])):
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return value{}, fmt.Errorf("number %q: %w", t, err)
		}
		return intValue(n), nil
	case unicode.IsLetter(rune(t[0])) || t[0] == '_':
		v, ok := p.vars[t]
		if !ok {
			return value{}, fmt.Errorf("%q is neither a template nor a dimension", t)
		}
		return v, nil
	}
	return value{}, fmt.Errorf("unexpected %q", t)
}

// arith applies an operator to two integers, refusing overflow; strings
// only concatenate, within the bytes left in the budget.
func (p *parser) arith(op string, a, b value) (value, error) {
	if !a.isInt || !b.isInt {
		if op == "+" && !a.isInt && !b.isInt {
			if !p.budget.fits(int64(len(a.s)) + int64(len(b.s))) {
				return value{}, p.budget.tooLong()
			}
			return strValue(a.s + b.s), nil
		}
		return value{}, fmt.Errorf("%q between %.60q and %.60q: arithmetic needs integers", op, a, b)
	}
	var n int64
	var ok bool
	switch op {
	case "+":
		n, ok = checked.Add(a.n, b.n)
	case "-":
		n, ok = checked.Sub(a.n, b.n)
	case "*":
		n, ok = checked.Mul(a.n, b.n)
	case "//", "%", "/":
		return divide(op, a.n, b.n)
	default:
		return value{}, fmt.Errorf("unknown operator %q", op)
	}
	if !ok {
		return value{}, overflowf(a.n, op, b.n)
	}
	return intValue(n), nil
}

// divide is Python's floor division and modulo (and jinja's "/" where
// it divides evenly).
func divide(op string, a, b int64) (value, error) {
	switch {
	case b == 0:
		return value{}, fmt.Errorf("division by zero")
	case a == math.MinInt64 && b == -1 && op != "%":
		return value{}, overflowf(a, op, b)
	}
	q, r := a/b, a%b
	if r != 0 && (r < 0) != (b < 0) { // Python floors
		q--
		r += b
	}
	switch {
	case op == "%":
		return intValue(r), nil
	case op == "/" && r != 0:
		return value{}, fmt.Errorf("%d / %d is not a whole number (jinja's / divides into floats)", a, b)
	}
	return intValue(q), nil
}
