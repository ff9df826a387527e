//go:build !purego

#include "textflag.h"
#include "eol_amd64.h"

// func scanBlock(b []byte, s *block) int
//
// The fast layout of block.go, matched as block_generic.go does: R8 is the
// start of the part being matched, R9 the block's line count, R12 which
// line's end is searched (0 the event line, 1 the data line), R10 the
// search position. The line ends are searched as indexEOL does: 32 bytes
// at a time with AVX2 (only VEX instructions until the VZEROUPPER at the
// end), else 16 with SSE2; the last bytes of b are searched by one load of
// its last 32 (16) bytes, overlapping what was searched, or one byte at a
// time when b is shorter. No load reaches outside b.
TEXT ·scanBlock(SB), NOSPLIT, $0-40
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	MOVQ s+24(FP), DI
	CMPB ·useAVX2(SB), $1
	JEQ  avxconst
	MOVQ $0x0a0a0a0a0a0a0a0a, AX
	MOVQ AX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x0d0d0d0d0d0d0d0d, AX
	MOVQ AX, X2
	PUNPCKLQDQ X2, X2
	JMP  setup

avxconst:
	VMOVDQU eolTable<>(SB), Y1

setup:
	XORQ R8, R8
	MOVQ $2, R9
	XORQ R12, R12
	CMPQ BX, $6
	JB   data
	CMPL (SI), $0x6e657665 // "even"
	JNE  data
	CMPW 4(SI), $0x3a74 // "t:"
	JNE  data
	MOVQ $6, R8
	CMPQ R8, BX
	JEQ  short
	CMPB 6(SI), $0x20
	JNE  evname
	INCQ R8

evname:
	MOVQ R8, 0(DI) // s.ev0
	MOVQ $3, R9
	JMP  search

data:
	// The data line starts at R8.
	LEAQ 5(R8), R11
	CMPQ R11, BX
	JA   short
	CMPL (SI)(R8*1), $0x61746164 // "data"
	JNE  other
	CMPB 4(SI)(R8*1), $0x3a // ':'
	JNE  other
	MOVQ R11, R8
	CMPQ R8, BX
	JEQ  short
	CMPB (SI)(R8*1), $0x20
	JNE  dvalue
	INCQ R8

dvalue:
	MOVQ R8, 16(DI) // s.d0
	MOVQ $1, R12

search:
	// The first CR or LF at or after R8, into R10.
	MOVQ R8, R10
	CMPB ·useAVX2(SB), $1
	JNE  sloop

	// A byte is LF or CR when it equals the entry of eolTable its low
	// nibble selects (VPSHUFB gives 0 for a byte with the high bit set).
	// 64 bytes at a time, then 32.
	LEAQ     64(R10), R11
	CMPQ     R11, BX
	JA       a32

aloop:
	VMOVDQU  (SI)(R10*1), Y0
	VMOVDQU  32(SI)(R10*1), Y5
	VPSHUFB  Y0, Y1, Y3
	VPSHUFB  Y5, Y1, Y6
	VPCMPEQB Y0, Y3, Y3
	VPCMPEQB Y5, Y6, Y6
	VPOR     Y3, Y6, Y7
	VPTEST   Y7, Y7
	JNZ      ahit64
	MOVQ     R11, R10
	ADDQ     $64, R11
	CMPQ     R11, BX
	JBE      aloop
	JMP      a32

ahit64:
	VPMOVMSKB Y3, CX
	TESTL     CX, CX
	JNZ       hit
	VPMOVMSKB Y6, CX
	ADDQ      $32, R10
	JMP       hit

a32:
	LEAQ     32(R10), R11
	CMPQ     R11, BX
	JA       atail
	VMOVDQU  (SI)(R10*1), Y0
	VPSHUFB  Y0, Y1, Y3
	VPCMPEQB Y0, Y3, Y3
	VPMOVMSKB Y3, CX
	TESTL    CX, CX
	JNZ      hit
	MOVQ     R11, R10

atail:
	// Fewer than 32 bytes left at R10: the last 32 bytes of b, without
	// the R10-R11 of them already searched.
	CMPQ     R10, BX
	JAE      short
	CMPQ     BX, $32
	JB       bytes
	LEAQ     -32(BX), R11
	VMOVDQU  (SI)(R11*1), Y0
	VPSHUFB  Y0, Y1, Y3
	VPCMPEQB Y0, Y3, Y3
	VPMOVMSKB Y3, DX
	JMP      tailhit

sloop:
	LEAQ     16(R10), R11
	CMPQ     R11, BX
	JA       stail
	EOLMASK16((SI)(R10*1), CX)
	TESTL    CX, CX
	JNZ      hit
	MOVQ     R11, R10
	JMP      sloop

stail:
	// Fewer than 16 bytes left at R10, as atail.
	CMPQ     R10, BX
	JAE      short
	CMPQ     BX, $16
	JB       bytes
	LEAQ     -16(BX), R11
	EOLMASK16((SI)(R11*1), DX)

tailhit:
	// DX holds the LF and CR bits of the last load, at R11; the bytes
	// before R10 were searched already.
	MOVQ     R10, CX
	SUBQ     R11, CX
	SHRL     CX, DX
	TESTL    DX, DX
	JZ       short
	BSFL     DX, DX
	ADDQ     DX, R10
	JMP      eol

hit:
	BSFL CX, CX
	ADDQ CX, R10
	JMP  eol

bytes:
	// b is shorter than one load.
	CMPQ    R10, BX
	JAE     short
	MOVBLZX (SI)(R10*1), AX
	CMPB    AL, $0x0a
	JEQ     eol
	CMPB    AL, $0x0d
	JEQ     eol
	INCQ    R10
	JMP     bytes

eol:
	// R10 is the line's terminator: LF, or CR and LF; the next line
	// starts at R11.
	LEAQ 1(R10), R11
	CMPB (SI)(R10*1), $0x0a
	JEQ  eolok
	CMPQ R11, BX
	JAE  short // a CR as the last byte: CRLF or a lone CR
	CMPB (SI)(R11*1), $0x0a
	JNE  other // a lone CR
	INCQ R11

eolok:
	MOVQ  R11, R8
	TESTQ R12, R12
	JNZ   dataend
	MOVQ  R10, 8(DI) // s.ev1
	JMP   data

dataend:
	MOVQ    R10, 24(DI) // s.d1
	// The blank line starts at R8.
	CMPQ    R8, BX
	JAE     short
	MOVBLZX (SI)(R8*1), AX
	CMPB    AL, $0x0a
	JEQ     blanklf
	CMPB    AL, $0x0d
	JNE     other
	LEAQ    1(R8), R11
	CMPQ    R11, BX
	JAE     short
	CMPB    (SI)(R11*1), $0x0a
	JNE     other
	LEAQ    2(R8), R8
	JMP     match

blanklf:
	INCQ R8

match:
	MOVQ R8, 32(DI) // s.end
	MOVQ R9, 40(DI) // s.lines
	MOVQ $1, AX     // blockMatch
	JMP  done

short:
	MOVQ $2, AX // blockShort
	JMP  done

other:
	XORQ AX, AX // blockOther

done:
	MOVQ AX, ret+32(FP)
	CMPB ·useAVX2(SB), $1
	JNE  ret
	VZEROUPPER

ret:
	RET

// eolTable maps a low nibble to the byte that is LF or CR with it (0x0A,
// 0x0D) and every other nibble to a byte with another low nibble (the
// next one), in both 16-byte lanes.
DATA eolTable<>+0(SB)/8, $0x0807060504030201
DATA eolTable<>+8(SB)/8, $0x000f0d0d0c0a0a09
DATA eolTable<>+16(SB)/8, $0x0807060504030201
DATA eolTable<>+24(SB)/8, $0x000f0d0d0c0a0a09
GLOBL eolTable<>(SB), RODATA|NOPTR, $32
