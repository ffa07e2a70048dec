//go:build amd64 && !purego

#include "textflag.h"

// profLaneMasks keeps the last d (1..4) bytes of four as values 0..9,
// indexed by d-1 (profLaneMask).
DATA profLaneMasks<>+0x00(SB)/4, $0x0f000000
DATA profLaneMasks<>+0x04(SB)/4, $0x0f0f0000
DATA profLaneMasks<>+0x08(SB)/4, $0x0f0f0f00
DATA profLaneMasks<>+0x0c(SB)/4, $0x0f0f0f0f
// Then masks of the low d (1..7) bytes of a word, indexed by d-1.
DATA profLaneMasks<>+0x10(SB)/8, $0x00000000000000ff
DATA profLaneMasks<>+0x18(SB)/8, $0x000000000000ffff
DATA profLaneMasks<>+0x20(SB)/8, $0x0000000000ffffff
DATA profLaneMasks<>+0x28(SB)/8, $0x00000000ffffffff
DATA profLaneMasks<>+0x30(SB)/8, $0x000000ffffffffff
DATA profLaneMasks<>+0x38(SB)/8, $0x0000ffffffffffff
DATA profLaneMasks<>+0x40(SB)/8, $0x00ffffffffffffff
GLOBL profLaneMasks<>(SB), RODATA|NOPTR, $72

// PAIR turns two lanes of digits in r into high<<32 | low (profPair); it
// clobbers CX.
#define PAIR(r) \
	LEAQ (r)(r*4), CX \
	SHRQ $8, r \
	LEAQ (r)(CX*2), r \
	MOVQ $0x00ff00ff00ff00ff, CX \
	ANDQ CX, r \
	IMUL3Q $6553601, r, r \
	SHRQ $16, r \
	MOVQ $0x0000ffff0000ffff, CX \
	ANDQ CX, r

// NEXT finds the separator after the number that ends at prev, from the
// mask DI, into cur; it checks that the number has 1 to 4 digits and that
// the separator is sep, and leaves in AX the number's lane (profLane). It
// clobbers CX.
#define NEXT(prev, cur, sep) \
	LEAQ -1(DI), CX \
	ANDQ CX, DI \
	BSFQ DI, cur \
	LEAQ -2(cur), CX \
	SUBQ prev, CX \
	CMPQ CX, $3 \
	JA done \
	CMPB (SI)(cur*1), $sep \
	JNE done \
	MOVL -4(SI)(cur*1), AX \
	ANDL (R14)(CX*4), AX

// Registers in the loop:
//	R8	the line's start
//	R9	the last line start with room (profLineRoom bytes from 4 before its colon)
//	R10	pre, R11 its length
//	R12	the next block of dst, R13 the end of dst
//	R14	profLaneMasks (and the masks of low bytes after them)
//	SI	the line after the colon, DI the mask of its non-digits
//	X2, X3	the start and end of the block before
//	X4	the line number
//	X8, X9	0x46 and 0x75 in every byte: a byte b is a digit when
//		b+0x46 is above 0x75 as a signed byte
//
// func profBlockRun(buf, pre []byte, dst []profBlock, line int, last *[2]uint64) (used, n int, unsorted bool)
TEXT ·profBlockRun(SB), NOSPLIT, $0-105
	MOVQ buf_base+0(FP), R8
	MOVQ pre_base+24(FP), R10
	MOVQ pre_len+32(FP), R11
	MOVQ dst_base+48(FP), R12
	MOVQ dst_len+56(FP), R13
	SHLQ $5, R13
	ADDQ R12, R13
	MOVQ line+72(FP), X4
	MOVB $0, unsorted+104(FP)
	MOVQ last+80(FP), AX
	MOVQ 0(AX), X2
	MOVQ 8(AX), X3
	CMPQ R11, $16
	JLT done
	MOVQ buf_len+8(FP), R9
	SUBQ R11, R9
	SUBQ $36, R9
	JLT done
	ADDQ R8, R9
	LEAQ profLaneMasks<>(SB), R14
	MOVQ $0x4646464646464646, AX
	MOVQ AX, X8
	PUNPCKLQDQ X8, X8
	MOVQ $0x7575757575757575, AX
	MOVQ AX, X9
	PUNPCKLQDQ X9, X9

loop:
	CMPQ R12, R13
	JAE done
	CMPQ R8, R9
	JA done

	// The file name and its colon, 16 bytes at a time, the last 16
	// overlapping the ones before.
	XORQ AX, AX
	LEAQ -16(R11), CX
	CMPQ R11, $32
	JA prefix
	MOVOU (R8), X0
	MOVOU (R10), X1
	PCMPEQB X1, X0
	PMOVMSKB X0, BX
	CMPL BX, $0xffff
	JNE done
	JMP prefixtail

prefix:
	CMPQ AX, CX
	JAE prefixtail
	MOVOU (R8)(AX*1), X0
	MOVOU (R10)(AX*1), X1
	PCMPEQB X1, X0
	PMOVMSKB X0, BX
	CMPL BX, $0xffff
	JNE done
	ADDQ $16, AX
	JMP prefix

prefixtail:
	MOVOU (R8)(CX*1), X0
	MOVOU (R10)(CX*1), X1
	PCMPEQB X1, X0
	PMOVMSKB X0, BX
	CMPL BX, $0xffff
	JNE done

	// The non-digits among the 32 bytes after the colon, and a sentinel.
	// (The Go loop looks at 24 and puts its sentinel there: with numbers
	// of at most 4 digits, the fifth separator is within 25 bytes, so both
	// take and refuse the same lines.)
	LEAQ (R8)(R11*1), SI
	MOVOU (SI), X0
	MOVOU 16(SI), X1
	PADDB X8, X0
	PADDB X8, X1
	PCMPGTB X9, X0
	PCMPGTB X9, X1
	PMOVMSKB X0, DI
	PMOVMSKB X1, AX
	SHLL $16, AX
	ORL AX, DI
	NOTL DI
	BTSQ $32, DI

	// sl: the first number, 1 to 4 digits, then '.'.
	BSFQ DI, BX
	LEAQ -1(BX), CX
	CMPQ CX, $3
	JA done
	CMPB (SI)(BX*1), $0x2e
	JNE done
	MOVL -4(SI)(BX*1), DX
	ANDL (R14)(CX*4), DX
	SHLQ $32, DX

	// sc, then ','; the start.
	MOVQ DX, R15
	NEXT(BX, DX, 0x2c)
	ORQ R15, AX
	PAIR(AX)
	MOVQ AX, 0(R12)

	// el, then '.'; ec, then ' '; the end, not before the start.
	NEXT(DX, BX, 0x2e)
	SHLQ $32, AX
	MOVQ AX, R15
	NEXT(BX, DX, 0x20)
	ORQ R15, AX
	PAIR(AX)
	CMPQ AX, 0(R12)
	JB done
	MOVQ AX, 8(R12)

	// The statements, then ' '.
	NEXT(DX, BX, 0x20)
	PAIR(AX)
	MOVL AX, 16(R12)

	// The count: 1 to 7 digits up to the next non-digit (a sentinel at
	// 32), which must be '\n' and ends the line.
	LEAQ -1(DI), CX
	ANDQ CX, DI
	BSFQ DI, DX
	LEAQ -2(DX), CX
	SUBQ BX, CX
	CMPQ CX, $6
	JA done
	CMPB (SI)(DX*1), $0x0a
	JNE done

	// The line is taken: whether the count is not zero (its digits, not
	// all '0'), the line number, the next line.
	LEAQ 1(SI)(DX*1), R8
	MOVQ 1(SI)(BX*1), AX
	MOVQ $0x3030303030303030, DX
	XORQ DX, AX
	ANDQ 16(R14)(CX*8), AX
	SETNE 20(R12)
	MOVQ X4, AX
	INCQ AX
	MOVQ AX, X4
	MOVQ AX, 24(R12)

	// Not after the block before: unsorted.
	MOVQ 0(R12), AX
	MOVQ X2, DX
	CMPQ AX, DX
	JB unsorted
	JNE sorted
	MOVQ 8(R12), AX
	MOVQ X3, DX
	CMPQ AX, DX
	JA sorted

unsorted:
	MOVB $1, unsorted+104(FP)

sorted:
	MOVQ 0(R12), X2
	MOVQ 8(R12), X3
	ADDQ $32, R12
	JMP loop

done:
	MOVQ R8, AX
	SUBQ buf_base+0(FP), AX
	MOVQ AX, used+88(FP)
	MOVQ R12, AX
	SUBQ dst_base+48(FP), AX
	SHRQ $5, AX
	MOVQ AX, n+96(FP)
	MOVQ last+80(FP), AX
	MOVQ X2, 0(AX)
	MOVQ X3, 8(AX)
	RET
