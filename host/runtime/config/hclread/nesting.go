package hclread

import (
	"bytes"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// MaxNesting bounds how deeply a configuration nests blocks, brackets,
// braces, parentheses, strings, template directives and operators. HCL's
// parser and evaluator descend into each level recursively, up to 20 KB of
// stack a level, and an overflowing Go stack kills the process, not just
// the parse: an 80 000-deep list did. Files, lock files and the values of
// environment variables are scanned for it before they are parsed.
const MaxNesting = 256

// CheckNesting reports, as a diagnostic at the token that crosses it, a
// configuration source nested deeper than MaxNesting. Anything parsing
// HCL that it does not trust (the CLI configuration too) should call it
// before the parser.
func CheckNesting(src []byte, filename string) hcl.Diagnostics {
	toks, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos) // the parser reports lexing errors
	if d := tooDeep(toks, true); d != nil {
		return hcl.Diagnostics{d}
	}
	return nil
}

// checkExpressionNesting is CheckNesting for a lone expression, such as
// an environment variable's value.
func checkExpressionNesting(src []byte, filename string) hcl.Diagnostics {
	toks, _ := hclsyntax.LexExpression(src, filename, hcl.InitialPos)
	if d := tooDeep(toks, false); d != nil {
		return hcl.Diagnostics{d}
	}
	return nil
}

// nestLevel is one open bracket (or block, string, interpolation) of the
// scan. ops counts the operators pending in the expression being read at
// this level: each nests the parse one level deeper (a+b+c is (a+b)+c,
// !!x is !(!x), a ? b : c ? d : e nests to the right), until a comma or,
// where newlines end expressions, a newline.
type nestLevel struct {
	open  hclsyntax.TokenType
	ops   int
	lines bool
}

// tooDeep scans toks for the first token at which the open levels and
// their pending operators exceed MaxNesting. It overestimates rather than
// miss: a mismatched closer closes nothing, every operator counts. lines
// says whether newlines end expressions at the top level (a file's body)
// or not (a lone expression).
func tooDeep(toks hclsyntax.Tokens, lines bool) *hcl.Diagnostic {
	levels := []nestLevel{{lines: lines}}
	depth := 0 // open levels below the top, plus every level's ops
	for i, tok := range toks {
		top := &levels[len(levels)-1]
		switch {
		case len(levels) > 1 && closes(tok.Type, top.open):
			depth -= 1 + top.ops
			levels = levels[:len(levels)-1]
		case tok.Type == hclsyntax.TokenComma || endsLine(tok) && top.lines:
			depth -= top.ops
			top.ops = 0
		case isOpener(tok.Type):
			if tok.Type == hclsyntax.TokenOBrack && i > 0 && endsTerm(toks[i-1].Type) {
				top.ops++ // an index or splat nests the expression before it
				depth++
			}
			levels = append(levels, nestLevel{open: tok.Type, lines: tok.Type == hclsyntax.TokenOBrace && !forNext(toks, i)})
			depth++
		case operators[tok.Type]:
			top.ops++
			depth++
		case directive(toks, i, "if", "for"):
			levels[len(levels)-2].ops++ // counted in the template, which the directive's braces do not end
			depth++
		case directive(toks, i, "endif", "endfor") && levels[len(levels)-2].ops > 0:
			levels[len(levels)-2].ops--
			depth--
		}
		if depth > MaxNesting {
			return ErrorAt(tok.Range, "Nesting too deep",
				"This opens more than %d levels of blocks, brackets, parentheses, strings, template directives and operators; zarrgw reads no deeper, since the parser would exhaust its stack. Write the value with less nesting.", MaxNesting)
		}
	}
	return nil
}

// closes reports whether token t closes a level opened by open.
func closes(t, open hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenCBrace:
		return open == hclsyntax.TokenOBrace
	case hclsyntax.TokenCBrack:
		return open == hclsyntax.TokenOBrack
	case hclsyntax.TokenCParen:
		return open == hclsyntax.TokenOParen
	case hclsyntax.TokenCQuote:
		return open == hclsyntax.TokenOQuote
	case hclsyntax.TokenCHeredoc:
		return open == hclsyntax.TokenOHeredoc
	case hclsyntax.TokenTemplateSeqEnd:
		return open == hclsyntax.TokenTemplateInterp || open == hclsyntax.TokenTemplateControl
	}
	return false
}

func isOpener(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenOParen, hclsyntax.TokenOQuote,
		hclsyntax.TokenOHeredoc, hclsyntax.TokenTemplateInterp, hclsyntax.TokenTemplateControl:
		return true
	}
	return false
}

// operators are the tokens that nest an expression: binary and unary
// operators, and the conditional's question mark.
var operators = map[hclsyntax.TokenType]bool{
	hclsyntax.TokenPlus: true, hclsyntax.TokenMinus: true, hclsyntax.TokenStar: true, hclsyntax.TokenSlash: true,
	hclsyntax.TokenPercent: true, hclsyntax.TokenEqualOp: true, hclsyntax.TokenNotEqual: true,
	hclsyntax.TokenLessThan: true, hclsyntax.TokenLessThanEq: true, hclsyntax.TokenGreaterThan: true,
	hclsyntax.TokenGreaterThanEq: true, hclsyntax.TokenAnd: true, hclsyntax.TokenOr: true,
	hclsyntax.TokenBang: true, hclsyntax.TokenQuestion: true,
}

// endsTerm reports whether a token can end an expression term, so that a
// bracket after it indexes that term.
func endsTerm(t hclsyntax.TokenType) bool {
	switch t {
	case hclsyntax.TokenIdent, hclsyntax.TokenNumberLit, hclsyntax.TokenCBrack, hclsyntax.TokenCParen,
		hclsyntax.TokenCBrace, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc, hclsyntax.TokenStar:
		return true
	}
	return false
}

// endsLine reports whether tok is a newline, or a line comment, which
// holds the newline that ends it.
func endsLine(tok hclsyntax.Token) bool {
	return tok.Type == hclsyntax.TokenNewline ||
		tok.Type == hclsyntax.TokenComment && bytes.HasSuffix(tok.Bytes, []byte("\n"))
}

// forNext reports whether the brace at toks[i] begins a for expression,
// which, unlike an object, reads across newlines.
func forNext(toks hclsyntax.Tokens, i int) bool {
	for _, t := range toks[i+1:] {
		if t.Type != hclsyntax.TokenNewline && t.Type != hclsyntax.TokenComment {
			return t.Type == hclsyntax.TokenIdent && string(t.Bytes) == "for"
		}
	}
	return false
}

// directive reports whether toks[i] is the keyword, one of words, of a
// template directive (%{if ...}): if and for open a nested part of the
// template, which endif and endfor close.
func directive(toks hclsyntax.Tokens, i int, words ...string) bool {
	if i == 0 || toks[i-1].Type != hclsyntax.TokenTemplateControl || toks[i].Type != hclsyntax.TokenIdent {
		return false
	}
	for _, w := range words {
		if string(toks[i].Bytes) == w {
			return true
		}
	}
	return false
}

// nestingError is the one-line form of a nesting diagnostic, for errors
// that are not diagnostics (an environment variable's value).
func nestingError(diags hcl.Diagnostics) error {
	return fmt.Errorf("%s: %s", diags[0].Summary, diags[0].Detail)
}
