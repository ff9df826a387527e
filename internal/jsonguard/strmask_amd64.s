//go:build !purego

#include "textflag.h"

// func specialBlocks(b []byte, out []uint64)
//
// For each 64-byte block of b (len(b) is 64*len(out)), the mask of its
// quotes, backslashes and control bytes (< 0x20), bit k for byte k: four
// 16-byte steps of PCMPEQB against '"' and '\', PMINUB/PCMPEQB against
// 0x1f, and PMOVMSKB.
TEXT ·specialBlocks(SB), NOSPLIT, $0-48
	MOVQ    b_base+0(FP), SI
	MOVQ    out_base+24(FP), DI
	MOVQ    out_len+32(FP), CX
	TESTQ   CX, CX
	JZ      done
	MOVQ    $0x2222222222222222, AX
	MOVQ    AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ    $0x5c5c5c5c5c5c5c5c, AX
	MOVQ    AX, X2
	PUNPCKLQDQ X2, X2
	MOVQ    $0x1f1f1f1f1f1f1f1f, AX
	MOVQ    AX, X5
	PUNPCKLQDQ X5, X5

#define STEP(off, reg) \
	MOVOU   off(SI), X0; \
	MOVOU   X0, X3; \
	PCMPEQB X1, X3; \
	MOVOU   X0, X4; \
	PCMPEQB X2, X4; \
	POR     X4, X3; \
	MOVOU   X0, X4; \
	PMINUB  X5, X4; \
	PCMPEQB X0, X4; \
	POR     X4, X3; \
	PMOVMSKB X3, reg

loop:
	STEP(0, AX)
	STEP(16, BX)
	STEP(32, DX)
	STEP(48, R8)
	SHLQ    $16, BX
	ORQ     BX, AX
	SHLQ    $32, DX
	ORQ     DX, AX
	SHLQ    $48, R8
	ORQ     R8, AX
	MOVQ    AX, (DI)
	ADDQ    $64, SI
	ADDQ    $8, DI
	DECQ    CX
	JNZ     loop

done:
	RET
