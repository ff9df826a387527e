//go:build !purego

#include "textflag.h"

// func specialBlocks(b []byte, out []uint64)
//
// For each 64-byte block of b (len(b) is 64*len(out)), the mask of its
// quotes, backslashes and control bytes (< 0x20), bit k for byte k: with
// AVX2 (useAVX2) two 32-byte steps, otherwise four 16-byte ones, each of
// PCMPEQB against '"' and '\', PMINUB/PCMPEQB against 0x1f (a byte is at
// most 0x1f when its minimum with 0x1f is itself), and PMOVMSKB.
TEXT ·specialBlocks(SB), NOSPLIT, $0-48
	MOVQ    b_base+0(FP), SI
	MOVQ    out_base+24(FP), DI
	MOVQ    out_len+32(FP), CX
	TESTQ   CX, CX
	JZ      done
	CMPB    ·useAVX2(SB), $1
	JEQ     avx2
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

avx2:
	MOVQ         $0x2222222222222222, AX
	VMOVQ        AX, X1
	VPBROADCASTB X1, Y1
	MOVQ         $0x5c5c5c5c5c5c5c5c, AX
	VMOVQ        AX, X2
	VPBROADCASTB X2, Y2
	MOVQ         $0x1f1f1f1f1f1f1f1f, AX
	VMOVQ        AX, X5
	VPBROADCASTB X5, Y5

#define VSTEP(off, reg) \
	VMOVDQU   off(SI), Y0; \
	VPCMPEQB  Y1, Y0, Y3; \
	VPCMPEQB  Y2, Y0, Y4; \
	VPOR      Y3, Y4, Y3; \
	VPMINUB   Y5, Y0, Y4; \
	VPCMPEQB  Y0, Y4, Y4; \
	VPOR      Y4, Y3, Y3; \
	VPMOVMSKB Y3, reg

aloop:
	VSTEP(0, AX)
	VSTEP(32, BX)
	SHLQ    $32, BX
	ORQ     BX, AX
	MOVQ    AX, (DI)
	ADDQ    $64, SI
	ADDQ    $8, DI
	DECQ    CX
	JNZ     aloop
	VZEROUPPER
	RET
