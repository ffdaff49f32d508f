//go:build amd64 && !purego

#include "textflag.h"

// Byte (un)shuffle kernels, SSE2. Interleaving uses the unpack
// instructions; de-interleaving splits even and odd bytes with a 0x00FF
// word mask, a word shift and PACKUSWB (exact, as every word is < 256),
// once per halving of the type size.

// func interleave2SSE2(p0, p1, dst unsafe.Pointer, groups int)
TEXT ·interleave2SSE2(SB), NOSPLIT, $0-32
	MOVQ p0+0(FP), SI
	MOVQ p1+8(FP), DI
	MOVQ dst+16(FP), DX
	MOVQ groups+24(FP), CX
	XORQ AX, AX
loop2:
	MOVOU (SI)(AX*1), X0
	MOVOU (DI)(AX*1), X1
	MOVO X0, X2
	PUNPCKLBW X1, X0
	PUNPCKHBW X1, X2
	MOVOU X0, (DX)
	MOVOU X2, 16(DX)
	ADDQ $16, AX
	ADDQ $32, DX
	DECQ CX
	JNE loop2
	RET

// func deinterleave2SSE2(src, p0, p1 unsafe.Pointer, groups int)
TEXT ·deinterleave2SSE2(SB), NOSPLIT, $0-32
	MOVQ src+0(FP), SI
	MOVQ p0+8(FP), DI
	MOVQ p1+16(FP), DX
	MOVQ groups+24(FP), CX
	XORQ AX, AX
	PCMPEQW X15, X15
	PSRLW $8, X15
dloop2:
	MOVOU (SI), X0
	MOVOU 16(SI), X1
	MOVO X0, X2
	MOVO X1, X3
	PAND X15, X2
	PAND X15, X3
	PACKUSWB X3, X2
	PSRLW $8, X0
	PSRLW $8, X1
	PACKUSWB X1, X0
	MOVOU X2, (DI)(AX*1)
	MOVOU X0, (DX)(AX*1)
	ADDQ $16, AX
	ADDQ $32, SI
	DECQ CX
	JNE dloop2
	RET

// func interleave4SSE2(p0, p1, p2, p3, dst unsafe.Pointer, groups int)
TEXT ·interleave4SSE2(SB), NOSPLIT, $0-48
	MOVQ p0+0(FP), SI
	MOVQ p1+8(FP), DI
	MOVQ p2+16(FP), R8
	MOVQ p3+24(FP), R9
	MOVQ dst+32(FP), DX
	MOVQ groups+40(FP), CX
	XORQ AX, AX
loop4:
	MOVOU (SI)(AX*1), X0
	MOVOU (DI)(AX*1), X1
	MOVOU (R8)(AX*1), X2
	MOVOU (R9)(AX*1), X3
	MOVO X0, X4
	PUNPCKLBW X1, X0 // a0 b0 .. a7 b7
	PUNPCKHBW X1, X4 // a8 b8 .. a15 b15
	MOVO X2, X5
	PUNPCKLBW X3, X2 // c0 d0 .. c7 d7
	PUNPCKHBW X3, X5 // c8 d8 .. c15 d15
	MOVO X0, X6
	PUNPCKLWL X2, X0 // elements 0-3
	PUNPCKHWL X2, X6 // elements 4-7
	MOVO X4, X7
	PUNPCKLWL X5, X4 // elements 8-11
	PUNPCKHWL X5, X7 // elements 12-15
	MOVOU X0, (DX)
	MOVOU X6, 16(DX)
	MOVOU X4, 32(DX)
	MOVOU X7, 48(DX)
	ADDQ $16, AX
	ADDQ $64, DX
	DECQ CX
	JNE loop4
	RET

// EVENODD(a, b, t, u): t = even bytes of a then b, a = odd bytes of a
// then b. Clobbers b and u; X15 holds the 0x00FF word mask.
#define EVENODD(a, b, t, u) \
	MOVO a, t \
	MOVO b, u \
	PAND X15, t \
	PAND X15, u \
	PACKUSWB u, t \
	PSRLW $8, a \
	PSRLW $8, b \
	PACKUSWB b, a

// func deinterleave4SSE2(src, p0, p1, p2, p3 unsafe.Pointer, groups int)
TEXT ·deinterleave4SSE2(SB), NOSPLIT, $0-48
	MOVQ src+0(FP), SI
	MOVQ p0+8(FP), DI
	MOVQ p1+16(FP), R8
	MOVQ p2+24(FP), R9
	MOVQ p3+32(FP), R10
	MOVQ groups+40(FP), CX
	XORQ AX, AX
	PCMPEQW X15, X15
	PSRLW $8, X15
dloop4:
	MOVOU (SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	EVENODD(X0, X1, X4, X8) // X4: bytes 0,2 of elements 0-7; X0: bytes 1,3
	EVENODD(X2, X3, X5, X8) // X5: bytes 0,2 of elements 8-15; X2: bytes 1,3
	EVENODD(X4, X5, X6, X8) // X6: byte 0; X4: byte 2
	EVENODD(X0, X2, X7, X8) // X7: byte 1; X0: byte 3
	MOVOU X6, (DI)(AX*1)
	MOVOU X7, (R8)(AX*1)
	MOVOU X4, (R9)(AX*1)
	MOVOU X0, (R10)(AX*1)
	ADDQ $16, AX
	ADDQ $64, SI
	DECQ CX
	JNE dloop4
	RET

// func interleave8SSE2(planes *[8]unsafe.Pointer, dst unsafe.Pointer, groups int)
TEXT ·interleave8SSE2(SB), NOSPLIT, $0-24
	MOVQ planes+0(FP), R13
	MOVQ dst+8(FP), DX
	MOVQ groups+16(FP), CX
	MOVQ 0(R13), SI
	MOVQ 8(R13), DI
	MOVQ 16(R13), R8
	MOVQ 24(R13), R9
	MOVQ 32(R13), R10
	MOVQ 40(R13), R11
	MOVQ 48(R13), R12
	MOVQ 56(R13), BX
	XORQ AX, AX
loop8:
	// Bytes 0-3 of elements 0-15 into X0-X3 (4 elements each).
	MOVOU (SI)(AX*1), X0
	MOVOU (DI)(AX*1), X1
	MOVOU (R8)(AX*1), X2
	MOVOU (R9)(AX*1), X3
	MOVO X0, X4
	PUNPCKLBW X1, X0
	PUNPCKHBW X1, X4
	MOVO X2, X5
	PUNPCKLBW X3, X2
	PUNPCKHBW X3, X5
	MOVO X0, X1
	PUNPCKLWL X2, X0 // elements 0-3
	PUNPCKHWL X2, X1 // elements 4-7
	MOVO X4, X3
	PUNPCKLWL X5, X3 // elements 8-11
	PUNPCKHWL X5, X4 // elements 12-15
	MOVO X3, X2
	MOVO X4, X3
	// Bytes 4-7 of elements 0-15 into X4-X7.
	MOVOU (R10)(AX*1), X4
	MOVOU (R11)(AX*1), X5
	MOVOU (R12)(AX*1), X6
	MOVOU (BX)(AX*1), X7
	MOVO X4, X8
	PUNPCKLBW X5, X4
	PUNPCKHBW X5, X8
	MOVO X6, X9
	PUNPCKLBW X7, X6
	PUNPCKHBW X7, X9
	MOVO X4, X5
	PUNPCKLWL X6, X4 // elements 0-3
	PUNPCKHWL X6, X5 // elements 4-7
	MOVO X8, X6
	PUNPCKLWL X9, X6 // elements 8-11
	PUNPCKHWL X9, X8 // elements 12-15
	MOVO X8, X7
	// Join the halves: two elements per register.
	MOVO X0, X8
	PUNPCKLLQ X4, X0
	PUNPCKHLQ X4, X8
	MOVOU X0, (DX)
	MOVOU X8, 16(DX)
	MOVO X1, X8
	PUNPCKLLQ X5, X1
	PUNPCKHLQ X5, X8
	MOVOU X1, 32(DX)
	MOVOU X8, 48(DX)
	MOVO X2, X8
	PUNPCKLLQ X6, X2
	PUNPCKHLQ X6, X8
	MOVOU X2, 64(DX)
	MOVOU X8, 80(DX)
	MOVO X3, X8
	PUNPCKLLQ X7, X3
	PUNPCKHLQ X7, X8
	MOVOU X3, 96(DX)
	MOVOU X8, 112(DX)
	ADDQ $16, AX
	ADDQ $128, DX
	DECQ CX
	JNE loop8
	RET

// func deinterleave8SSE2(src unsafe.Pointer, planes *[8]unsafe.Pointer, groups int)
TEXT ·deinterleave8SSE2(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), DX
	MOVQ planes+8(FP), R13
	MOVQ groups+16(FP), CX
	MOVQ 0(R13), SI
	MOVQ 8(R13), DI
	MOVQ 16(R13), R8
	MOVQ 24(R13), R9
	MOVQ 32(R13), R10
	MOVQ 40(R13), R11
	MOVQ 48(R13), R12
	MOVQ 56(R13), BX
	XORQ AX, AX
	PCMPEQW X15, X15
	PSRLW $8, X15
dloop8:
	MOVOU (DX), X0
	MOVOU 16(DX), X1
	MOVOU 32(DX), X2
	MOVOU 48(DX), X3
	MOVOU 64(DX), X4
	MOVOU 80(DX), X5
	MOVOU 96(DX), X6
	MOVOU 112(DX), X7
	// Even/odd bytes: X8-X11 bytes {0,2,4,6}, X0,X2,X4,X6 bytes {1,3,5,7}
	// of elements 0-3, 4-7, 8-11, 12-15.
	EVENODD(X0, X1, X8, X12)
	EVENODD(X2, X3, X9, X12)
	EVENODD(X4, X5, X10, X12)
	EVENODD(X6, X7, X11, X12)
	// Again: bytes {0,4} / {2,6} of elements 0-7 and 8-15, and {1,5} / {3,7}.
	EVENODD(X8, X9, X1, X12)   // X1 {0,4} 0-7, X8 {2,6} 0-7
	EVENODD(X10, X11, X3, X12) // X3 {0,4} 8-15, X10 {2,6} 8-15
	EVENODD(X0, X2, X5, X12)   // X5 {1,5} 0-7, X0 {3,7} 0-7
	EVENODD(X4, X6, X7, X12)   // X7 {1,5} 8-15, X4 {3,7} 8-15
	// Once more: single bytes of elements 0-15.
	EVENODD(X1, X3, X9, X12)   // X9 byte 0, X1 byte 4
	EVENODD(X8, X10, X11, X12) // X11 byte 2, X8 byte 6
	EVENODD(X5, X7, X13, X12)  // X13 byte 1, X5 byte 5
	EVENODD(X0, X4, X14, X12)  // X14 byte 3, X0 byte 7
	MOVOU X9, (SI)(AX*1)
	MOVOU X13, (DI)(AX*1)
	MOVOU X11, (R8)(AX*1)
	MOVOU X14, (R9)(AX*1)
	MOVOU X1, (R10)(AX*1)
	MOVOU X5, (R11)(AX*1)
	MOVOU X8, (R12)(AX*1)
	MOVOU X0, (BX)(AX*1)
	ADDQ $16, AX
	ADDQ $128, DX
	DECQ CX
	JNE dloop8
	RET

// Bit transpose of byte planes: the SWAR delta swaps of bitshuffle.go on
// both 64-bit halves of SSE2 registers, so 16 groups of 8 bytes go at a
// time: the low halves hold groups g..g+7, the high halves g+8..g+15.

DATA bsMask32<>+0(SB)/8, $0x00000000FFFFFFFF
DATA bsMask32<>+8(SB)/8, $0x00000000FFFFFFFF
GLOBL bsMask32<>(SB), RODATA|NOPTR, $16
DATA bsMask16<>+0(SB)/8, $0x0000FFFF0000FFFF
DATA bsMask16<>+8(SB)/8, $0x0000FFFF0000FFFF
GLOBL bsMask16<>(SB), RODATA|NOPTR, $16
DATA bsMask8<>+0(SB)/8, $0x00FF00FF00FF00FF
DATA bsMask8<>+8(SB)/8, $0x00FF00FF00FF00FF
GLOBL bsMask8<>(SB), RODATA|NOPTR, $16
DATA bsMask4<>+0(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA bsMask4<>+8(SB)/8, $0x0F0F0F0F0F0F0F0F
GLOBL bsMask4<>(SB), RODATA|NOPTR, $16
DATA bsMask2<>+0(SB)/8, $0x3333333333333333
DATA bsMask2<>+8(SB)/8, $0x3333333333333333
GLOBL bsMask2<>(SB), RODATA|NOPTR, $16
DATA bsMask1<>+0(SB)/8, $0x5555555555555555
DATA bsMask1<>+8(SB)/8, $0x5555555555555555
GLOBL bsMask1<>(SB), RODATA|NOPTR, $16

// SWAPQ(lo, hi, s, mask): t = ((lo >> s) ^ hi) & mask; hi ^= t;
// lo ^= t << s, per 64-bit lane, with X8 as t.
#define SWAPQ(lo, hi, s, mask) \
	MOVO lo, X8 \
	PSRLQ $s, X8 \
	PXOR hi, X8 \
	PAND mask, X8 \
	PXOR X8, hi \
	PSLLQ $s, X8 \
	PXOR X8, lo

#define TRANSPOSE_BYTES \
	SWAPQ(X0, X4, 32, X9) \
	SWAPQ(X1, X5, 32, X9) \
	SWAPQ(X2, X6, 32, X9) \
	SWAPQ(X3, X7, 32, X9) \
	SWAPQ(X0, X2, 16, X10) \
	SWAPQ(X1, X3, 16, X10) \
	SWAPQ(X4, X6, 16, X10) \
	SWAPQ(X5, X7, 16, X10) \
	SWAPQ(X0, X1, 8, X11) \
	SWAPQ(X2, X3, 8, X11) \
	SWAPQ(X4, X5, 8, X11) \
	SWAPQ(X6, X7, 8, X11)

#define TRANSPOSE_BITS \
	SWAPQ(X0, X4, 4, X12) \
	SWAPQ(X1, X5, 4, X12) \
	SWAPQ(X2, X6, 4, X12) \
	SWAPQ(X3, X7, 4, X12) \
	SWAPQ(X0, X2, 2, X13) \
	SWAPQ(X1, X3, 2, X13) \
	SWAPQ(X4, X6, 2, X13) \
	SWAPQ(X5, X7, 2, X13) \
	SWAPQ(X0, X1, 1, X14) \
	SWAPQ(X2, X3, 1, X14) \
	SWAPQ(X4, X5, 1, X14) \
	SWAPQ(X6, X7, 1, X14)

#define LOAD_MASKS \
	MOVOU bsMask32<>(SB), X9 \
	MOVOU bsMask16<>(SB), X10 \
	MOVOU bsMask8<>(SB), X11 \
	MOVOU bsMask4<>(SB), X12 \
	MOVOU bsMask2<>(SB), X13 \
	MOVOU bsMask1<>(SB), X14

// Row k of the plane starts at DI + k*rowLen: BX = rowLen, R8 = 3*rowLen,
// R9 = 5*rowLen, R11 = 7*rowLen.
#define ROW_OFFSETS \
	LEAQ (BX)(BX*2), R8 \
	LEAQ (BX)(BX*4), R9 \
	LEAQ (R8)(BX*4), R11

// func bitTransposeSSE2(p, r unsafe.Pointer, rowLen, chunks int)
TEXT ·bitTransposeSSE2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ r+8(FP), DI
	MOVQ rowLen+16(FP), BX
	MOVQ chunks+24(FP), CX
	ROW_OFFSETS
	LOAD_MASKS
tloop:
	MOVQ 0(SI), X0
	MOVHPS 64(SI), X0
	MOVQ 8(SI), X1
	MOVHPS 72(SI), X1
	MOVQ 16(SI), X2
	MOVHPS 80(SI), X2
	MOVQ 24(SI), X3
	MOVHPS 88(SI), X3
	MOVQ 32(SI), X4
	MOVHPS 96(SI), X4
	MOVQ 40(SI), X5
	MOVHPS 104(SI), X5
	MOVQ 48(SI), X6
	MOVHPS 112(SI), X6
	MOVQ 56(SI), X7
	MOVHPS 120(SI), X7
	TRANSPOSE_BYTES
	TRANSPOSE_BITS
	MOVOU X0, (DI)
	MOVOU X1, (DI)(BX*1)
	MOVOU X2, (DI)(BX*2)
	MOVOU X3, (DI)(R8*1)
	MOVOU X4, (DI)(BX*4)
	MOVOU X5, (DI)(R9*1)
	MOVOU X6, (DI)(R8*2)
	MOVOU X7, (DI)(R11*1)
	ADDQ $128, SI
	ADDQ $16, DI
	DECQ CX
	JNE tloop
	RET

// func bitUntransposeSSE2(r, p unsafe.Pointer, rowLen, chunks int)
TEXT ·bitUntransposeSSE2(SB), NOSPLIT, $0-32
	MOVQ r+0(FP), DI
	MOVQ p+8(FP), SI
	MOVQ rowLen+16(FP), BX
	MOVQ chunks+24(FP), CX
	ROW_OFFSETS
	LOAD_MASKS
uloop:
	MOVOU (DI), X0
	MOVOU (DI)(BX*1), X1
	MOVOU (DI)(BX*2), X2
	MOVOU (DI)(R8*1), X3
	MOVOU (DI)(BX*4), X4
	MOVOU (DI)(R9*1), X5
	MOVOU (DI)(R8*2), X6
	MOVOU (DI)(R11*1), X7
	TRANSPOSE_BITS
	TRANSPOSE_BYTES
	MOVQ X0, 0(SI)
	MOVHPS X0, 64(SI)
	MOVQ X1, 8(SI)
	MOVHPS X1, 72(SI)
	MOVQ X2, 16(SI)
	MOVHPS X2, 80(SI)
	MOVQ X3, 24(SI)
	MOVHPS X3, 88(SI)
	MOVQ X4, 32(SI)
	MOVHPS X4, 96(SI)
	MOVQ X5, 40(SI)
	MOVHPS X5, 104(SI)
	MOVQ X6, 48(SI)
	MOVHPS X6, 112(SI)
	MOVQ X7, 56(SI)
	MOVHPS X7, 120(SI)
	ADDQ $128, SI
	ADDQ $16, DI
	DECQ CX
	JNE uloop
	RET
