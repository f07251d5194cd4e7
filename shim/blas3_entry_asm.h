// The Level-3 BLAS entry points of x86-64, in assembly.
//
// Why: a call that stays on the CPU should cost what a jump costs. An entry point that
// tests the size and then tail-calls one of two functions is, compiled by GCC, a copy of
// all nine stack arguments of a Fortran GEMM into registers and back (GCC does not see that
// they stay where the caller put them): +5 ns on an 8x8 DGEMM of 41 ns. These entry points
// write no stack argument (CBLAS TRMM/TRSM read their n from the first stack slot), use only
// registers the ABI leaves free (rax, r10, r11, xmm8, xmm9) and end in one jump:
//
//     symbol:  xmm8 = size_product of the raw arguments (as dispatch/blas3_call.h computes it,
//                     the same operations in the same order)
//              if cpu != 0 and xmm8 < gate.forward_below: jmp *cpu   (forward_below is never
//                     NaN: thresholds are finite, config.cpp)
//              jmp gpushim_route_<symbol>
//
// where gate is gpushim_gate_<symbol>, a shim::Blas3EntryGate, cpu the CPU function it
// holds once resolved, and gpushim_route_<symbol> the routing path, a C++ function of the
// entry point's own signature (blas3_entries.cpp).
//
// GPUSHIM_ASM_BLAS3_ENTRY(symbol, interface, family, Int) expands to one top-level asm
// statement; interface is FORTRAN or CBLAS, family one of blas3_signatures.h, Int int32_t
// or int64_t.
#pragma once

#include "shim/blas3_entry_gate.h"
#include "shim/export.h"

#if defined(__CET__) && (__CET__ & 1)
#define GPUSHIM_ASM_ENDBR "endbr64\n"
#else
#define GPUSHIM_ASM_ENDBR ""
#endif

// Integer widths: the conversion suffix, and the move that widens to 64 bits.
#define GPUSHIM_ASM_W_int32_t "l"
#define GPUSHIM_ASM_W_int64_t "q"
#define GPUSHIM_ASM_TO_64_int32_t "movslq"
#define GPUSHIM_ASM_TO_64_int64_t "movq"

// CBLAS sizes by value: the fourth to sixth integer arguments, then the first stack slot
// (above the return address). An int32_t is the low half of its register or slot.
#define GPUSHIM_ASM_ARG4_int32_t "%ecx"
#define GPUSHIM_ASM_ARG4_int64_t "%rcx"
#define GPUSHIM_ASM_ARG5_int32_t "%r8d"
#define GPUSHIM_ASM_ARG5_int64_t "%r8"
#define GPUSHIM_ASM_ARG6_int32_t "%r9d"
#define GPUSHIM_ASM_ARG6_int64_t "%r9"
#define GPUSHIM_ASM_STACK1 "8(%rsp)"

// Side tests, leaving ZF set for a left side: Fortran's character (either case) in the first
// argument, CBLAS's CblasLeft (141) in the second.
#define GPUSHIM_ASM_FORTRAN_LEFT "movzbl (%rdi), %eax\nandl $0xdf, %eax\ncmpl $0x4c, %eax\n"
#define GPUSHIM_ASM_CBLAS_LEFT "cmpl $141, %esi\n"

#define GPUSHIM_ASM_TO_DOUBLE(W, operand, xmm) \
    "xorps " xmm ", " xmm "\ncvtsi2sd" W " " operand ", " xmm "\n"
#define GPUSHIM_ASM_PLUS_ONE "addsd .Lgpushim_one(%rip), %xmm9\n"

// xmm8 = x * y * z
#define GPUSHIM_ASM_PRODUCT(W, x, y, z)  \
    GPUSHIM_ASM_TO_DOUBLE(W, x, "%xmm8") \
    GPUSHIM_ASM_TO_DOUBLE(W, y, "%xmm9") \
    "mulsd %xmm9, %xmm8\n" GPUSHIM_ASM_TO_DOUBLE(W, z, "%xmm9") "mulsd %xmm9, %xmm8\n"
// xmm8 = n * k * (n + 1)
#define GPUSHIM_ASM_RANK_PRODUCT(W, n, k)                                            \
    GPUSHIM_ASM_TO_DOUBLE(W, n, "%xmm8")                                             \
    GPUSHIM_ASM_TO_DOUBLE(W, k, "%xmm9")                                             \
    "mulsd %xmm9, %xmm8\n" GPUSHIM_ASM_TO_DOUBLE(W, n, "%xmm9") GPUSHIM_ASM_PLUS_ONE \
        "mulsd %xmm9, %xmm8\n"
// xmm8 = m * n * (left ? m : n) [+ plus_one]
#define GPUSHIM_ASM_SIDE_PRODUCT(W, TO_64, left, m, n, plus_one)              \
    GPUSHIM_ASM_TO_DOUBLE(W, m, "%xmm8")                                      \
    GPUSHIM_ASM_TO_DOUBLE(W, n, "%xmm9")                                      \
    "mulsd %xmm9, %xmm8\n" TO_64 " " m ", %r10\n" TO_64 " " n ", %r11\n" left \
    "cmove %r10, %r11\n" GPUSHIM_ASM_TO_DOUBLE("q", "%r11", "%xmm9") plus_one \
        "mulsd %xmm9, %xmm8\n"

// Each family's size_product, from its interface's argument registers.
#define GPUSHIM_ASM_FORTRAN_gemm(Int) \
    GPUSHIM_ASM_PRODUCT(GPUSHIM_ASM_W_##Int, "(%rdx)", "(%rcx)", "(%r8)")
#define GPUSHIM_ASM_FORTRAN_symm(Int)                                      \
    GPUSHIM_ASM_SIDE_PRODUCT(GPUSHIM_ASM_W_##Int, GPUSHIM_ASM_TO_64_##Int, \
                             GPUSHIM_ASM_FORTRAN_LEFT, "(%rdx)", "(%rcx)", "")
#define GPUSHIM_ASM_FORTRAN_rank_k(Int) \
    GPUSHIM_ASM_RANK_PRODUCT(GPUSHIM_ASM_W_##Int, "(%rdx)", "(%rcx)")
#define GPUSHIM_ASM_FORTRAN_rank_2k(Int) GPUSHIM_ASM_FORTRAN_rank_k(Int)
#define GPUSHIM_ASM_FORTRAN_triangular(Int)                                \
    GPUSHIM_ASM_SIDE_PRODUCT(GPUSHIM_ASM_W_##Int, GPUSHIM_ASM_TO_64_##Int, \
                             GPUSHIM_ASM_FORTRAN_LEFT, "(%r8)", "(%r9)", GPUSHIM_ASM_PLUS_ONE)

#define GPUSHIM_ASM_CBLAS_gemm(Int)                                                          \
    GPUSHIM_ASM_PRODUCT(GPUSHIM_ASM_W_##Int, GPUSHIM_ASM_ARG4_##Int, GPUSHIM_ASM_ARG5_##Int, \
                        GPUSHIM_ASM_ARG6_##Int)
#define GPUSHIM_ASM_CBLAS_symm(Int)                                                                \
    GPUSHIM_ASM_SIDE_PRODUCT(GPUSHIM_ASM_W_##Int, GPUSHIM_ASM_TO_64_##Int, GPUSHIM_ASM_CBLAS_LEFT, \
                             GPUSHIM_ASM_ARG4_##Int, GPUSHIM_ASM_ARG5_##Int, "")
#define GPUSHIM_ASM_CBLAS_rank_k(Int) \
    GPUSHIM_ASM_RANK_PRODUCT(GPUSHIM_ASM_W_##Int, GPUSHIM_ASM_ARG4_##Int, GPUSHIM_ASM_ARG5_##Int)
#define GPUSHIM_ASM_CBLAS_rank_2k(Int) GPUSHIM_ASM_CBLAS_rank_k(Int)
#define GPUSHIM_ASM_CBLAS_triangular(Int)                                                          \
    GPUSHIM_ASM_SIDE_PRODUCT(GPUSHIM_ASM_W_##Int, GPUSHIM_ASM_TO_64_##Int, GPUSHIM_ASM_CBLAS_LEFT, \
                             GPUSHIM_ASM_ARG6_##Int, GPUSHIM_ASM_STACK1, GPUSHIM_ASM_PLUS_ONE)

#define GPUSHIM_ASM_GATE(symbol, offset) "gpushim_gate_" #symbol "+" GPUSHIM_STRING(offset) "(%rip)"

// One instruction per line.
// clang-format off
#define GPUSHIM_ASM_BLAS3_ENTRY(symbol, interface, family, Int)                            \
    asm(".pushsection .text\n"                                                             \
        ".p2align 4\n"                                                                     \
        ".globl " #symbol "\n"                                                             \
        ".type " #symbol ", @function\n" #symbol ":\n"                                     \
        ".cfi_startproc\n" GPUSHIM_ASM_ENDBR GPUSHIM_ASM_##interface##_##family(Int)       \
        "movq " GPUSHIM_ASM_GATE(symbol, GPUSHIM_GATE_FUNCTION_OFFSET) ", %rax\n"          \
        "testq %rax, %rax\n"                                                               \
        "jz 1f\n"                                                                          \
        "ucomisd " GPUSHIM_ASM_GATE(symbol, GPUSHIM_GATE_FORWARD_BELOW_OFFSET) ", %xmm8\n" \
        "jae 1f\n"                                                                         \
        "jmp *%rax\n"                                                                      \
        "1: jmp gpushim_route_" #symbol "\n"                                               \
        ".cfi_endproc\n"                                                                   \
        ".size " #symbol ", .-" #symbol "\n"                                               \
        ".popsection\n");
// clang-format on

// The constant the +1 of size_product adds, once per translation unit.
#define GPUSHIM_ASM_BLAS3_CONSTANTS    \
    asm(".pushsection .rodata\n"       \
        ".p2align 3\n"                 \
        ".Lgpushim_one: .double 1.0\n" \
        ".popsection\n");
