//go:build !purego

#include "textflag.h"
#include "eol_amd64.h"

// func indexEOL(b []byte) int
//
// The index of the first LF or CR in b, or -1: AVX2 when the CPU has it
// (64 bytes per iteration), otherwise SSE2, which every amd64 has (32
// bytes per iteration); the last block is loaded overlapping the bytes
// already searched, so that no load reaches outside b.
TEXT ·indexEOL(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ SI, DI
	CMPQ BX, $16
	JB   small
	CMPQ BX, $32
	JB   sse2
	CMPB ·useAVX2(SB), $1
	JEQ  avx2

sse2:
	MOVQ $0x0a0a0a0a0a0a0a0a, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x0d0d0d0d0d0d0d0d, AX
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2
	LEAQ -16(SI)(BX*1), DX // the last 16 bytes start here
	LEAQ -32(SI)(BX*1), R8 // the last 32-byte block starts at or before here
	CMPQ BX, $32
	JB   tail

loop:
	MOVOU (DI), X0
	MOVOU 16(DI), X4
	MOVOU X0, X3
	MOVOU X4, X5
	PCMPEQB X1, X0
	PCMPEQB X2, X3
	PCMPEQB X1, X4
	PCMPEQB X2, X5
	POR   X3, X0
	POR   X5, X4
	MOVOU X0, X6
	POR   X4, X6
	PMOVMSKB X6, CX
	TESTL CX, CX
	JNZ   hit32
	ADDQ  $32, DI
	CMPQ  DI, R8
	JBE   loop

tail:
	// Fewer than 32 bytes left at DI: at most one whole 16-byte block,
	// then the last 16 bytes, overlapping what is searched.
	CMPQ DI, DX
	JA   last
	EOLMASK16((DI), CX)
	TESTL CX, CX
	JNZ   hit
	ADDQ  $16, DI

last:
	// DI is in (DX, DX+16]: the bytes DX to DI-1 are searched.
	MOVQ DI, CX
	SUBQ DX, CX
	CMPQ CX, $16
	JAE  none
	EOLMASK16((DX), AX)
	SHRL  CX, AX
	TESTL AX, AX
	JZ    none
	BSFL  AX, AX
	ADDQ  DI, AX
	SUBQ  SI, AX
	MOVQ  AX, ret+24(FP)
	RET

hit32:
	PMOVMSKB X0, CX
	TESTL CX, CX
	JNZ   hit
	PMOVMSKB X4, CX
	ADDQ  $16, DI

hit:
	BSFL CX, CX
	ADDQ CX, DI
	SUBQ SI, DI
	MOVQ DI, ret+24(FP)
	RET

small:
	TESTQ BX, BX
	JZ    none

sloop:
	MOVBLZX (DI), AX
	CMPB AL, $0x0a
	JEQ  sfound
	CMPB AL, $0x0d
	JEQ  sfound
	INCQ DI
	DECQ BX
	JNZ  sloop

none:
	MOVQ $-1, ret+24(FP)
	RET

sfound:
	SUBQ SI, DI
	MOVQ DI, ret+24(FP)
	RET

avx2:
	MOVQ $0x0a0a0a0a0a0a0a0a, AX
	VMOVQ AX, X1
	VPBROADCASTB X1, Y1
	MOVQ $0x0d0d0d0d0d0d0d0d, AX
	VMOVQ AX, X2
	VPBROADCASTB X2, Y2
	LEAQ -32(SI)(BX*1), DX // the last 32 bytes start here
	LEAQ -64(SI)(BX*1), R8 // the last 64-byte block starts at or before here
	CMPQ BX, $64
	JB   atail

aloop:
	VMOVDQU  (DI), Y0
	VMOVDQU  32(DI), Y5
	VPCMPEQB Y1, Y0, Y3
	VPCMPEQB Y2, Y0, Y4
	VPOR     Y3, Y4, Y3
	VPCMPEQB Y1, Y5, Y6
	VPCMPEQB Y2, Y5, Y7
	VPOR     Y6, Y7, Y6
	VPOR     Y3, Y6, Y7
	VPTEST   Y7, Y7
	JNZ      ahit64
	ADDQ     $64, DI
	CMPQ     DI, R8
	JBE      aloop

atail:
	// Fewer than 64 bytes left at DI: at most one whole 32-byte block,
	// then the last 32 bytes, overlapping what is searched.
	CMPQ DI, DX
	JA   alast
	VMOVDQU  (DI), Y0
	VPCMPEQB Y1, Y0, Y3
	VPCMPEQB Y2, Y0, Y4
	VPOR     Y3, Y4, Y3
	VPMOVMSKB Y3, CX
	TESTL    CX, CX
	JNZ      ahit
	ADDQ     $32, DI

alast:
	// DI is in (DX, DX+32]: the bytes DX to DI-1 are searched.
	MOVQ DI, CX
	SUBQ DX, CX
	CMPQ CX, $32
	JAE  anone
	VMOVDQU  (DX), Y0
	VPCMPEQB Y1, Y0, Y3
	VPCMPEQB Y2, Y0, Y4
	VPOR     Y3, Y4, Y3
	VPMOVMSKB Y3, AX
	VZEROUPPER
	SHRL  CX, AX
	TESTL AX, AX
	JZ    none
	BSFL  AX, AX
	ADDQ  DI, AX
	SUBQ  SI, AX
	MOVQ  AX, ret+24(FP)
	RET

ahit64:
	VPMOVMSKB Y3, CX
	TESTL CX, CX
	JNZ   ahit
	VPMOVMSKB Y6, CX
	ADDQ  $32, DI

ahit:
	VZEROUPPER
	BSFL CX, CX
	ADDQ CX, DI
	SUBQ SI, DI
	MOVQ DI, ret+24(FP)
	RET

anone:
	VZEROUPPER
	MOVQ $-1, ret+24(FP)
	RET
