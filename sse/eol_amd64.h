// The SSE2 search of LF and CR shared by eol_amd64.s and block_amd64.s.

// EOLMASK16 sets the low 16 bits of mask to the LF and CR bytes among the
// 16 at src (a memory operand), with X1 holding 16 LFs and X2 16 CRs; X0
// and X3 are clobbered.
#define EOLMASK16(src, mask) \
	MOVOU    src, X0 \
	MOVOU    X0, X3 \
	PCMPEQB  X1, X0 \
	PCMPEQB  X2, X3 \
	POR      X3, X0 \
	PMOVMSKB X0, mask
