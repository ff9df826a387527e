//go:build !purego

#include "textflag.h"

// func indexSpecial(b []byte, high bool) int
//
// The index of the first quote, backslash or control byte (< 0x20) in b,
// and with high of the first byte >= 0x80 too, or len(b): SSE2, which
// every amd64 has, 16 bytes per iteration; the last block is loaded
// overlapping the bytes already searched, so that no load reaches outside
// b. Fewer than 16 bytes are searched one by one.
TEXT ·indexSpecial(SB), NOSPLIT, $0-40
	MOVQ    b_base+0(FP), SI
	MOVQ    b_len+8(FP), BX
	MOVBLZX high+24(FP), R9
	NEGL    R9                  // 0, or all ones: the mask of the high bits
	MOVQ    SI, DI
	CMPQ    BX, $16
	JB      small
	MOVQ    $0x2222222222222222, AX
	MOVQ    AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ    $0x5c5c5c5c5c5c5c5c, AX
	MOVQ    AX, X2
	PUNPCKLQDQ X2, X2
	MOVQ    $0x1f1f1f1f1f1f1f1f, AX
	MOVQ    AX, X5
	PUNPCKLQDQ X5, X5
	LEAQ    -16(SI)(BX*1), DX   // the last 16 bytes start here

loop:
	CMPQ    DI, DX
	JA      last
	MOVOU   (DI), X0
	MOVOU   X0, X3
	PCMPEQB X1, X3
	MOVOU   X0, X4
	PCMPEQB X2, X4
	POR     X4, X3
	MOVOU   X0, X4
	PMINUB  X5, X4
	PCMPEQB X0, X4              // bytes <= 0x1f
	POR     X4, X3
	PMOVMSKB X3, CX
	PMOVMSKB X0, AX
	ANDL    R9, AX
	ORL     AX, CX
	TESTL   CX, CX
	JNZ     hit
	ADDQ    $16, DI
	JMP     loop

last:
	// DI is in (DX, DX+16]: the bytes DX to DI-1 are searched.
	MOVQ    DI, CX
	SUBQ    DX, CX
	CMPQ    CX, $16
	JAE     none
	MOVOU   (DX), X0
	MOVOU   X0, X3
	PCMPEQB X1, X3
	MOVOU   X0, X4
	PCMPEQB X2, X4
	POR     X4, X3
	MOVOU   X0, X4
	PMINUB  X5, X4
	PCMPEQB X0, X4
	POR     X4, X3
	PMOVMSKB X3, R8
	PMOVMSKB X0, AX
	ANDL    R9, AX
	ORL     R8, AX
	SHRL    CX, AX
	TESTL   AX, AX
	JZ      none
	BSFL    AX, AX
	ADDQ    DI, AX
	SUBQ    SI, AX
	MOVQ    AX, ret+32(FP)
	RET

hit:
	BSFL    CX, CX
	ADDQ    CX, DI
	SUBQ    SI, DI
	MOVQ    DI, ret+32(FP)
	RET

small:
	TESTQ   BX, BX
	JZ      none
	ANDL    $0x80, R9

sloop:
	MOVBLZX (DI), AX
	CMPB    AL, $0x22
	JEQ     sfound
	CMPB    AL, $0x5c
	JEQ     sfound
	CMPB    AL, $0x20
	JB      sfound
	TESTL   R9, AX
	JNZ     sfound
	INCQ    DI
	DECQ    BX
	JNZ     sloop

none:
	MOVQ    b_len+8(FP), AX
	MOVQ    AX, ret+32(FP)
	RET

sfound:
	SUBQ    SI, DI
	MOVQ    DI, ret+32(FP)
	RET
