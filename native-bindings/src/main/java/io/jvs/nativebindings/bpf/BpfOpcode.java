package io.jvs.nativebindings.bpf;

/**
 * The fields of a {@code bpf_insn} opcode byte, as in the kernel's BPF instruction set
 * ({@code linux/bpf_common.h}, {@code linux/bpf.h}). An opcode is the OR of a class, and either an ALU or
 * jump operation with a source, or a memory mode with a size:
 * <pre>
 *   ALU/JMP:  op (4 bits) | source (1 bit) | class (3 bits)
 *   LD/ST:    mode (3 bits) | size (2 bits) | class (3 bits)
 * </pre>
 */
public final class BpfOpcode
{
    /** Instruction classes (the low 3 bits). */
    public static final int CLASS_LD = 0x00;
    public static final int CLASS_LDX = 0x01;
    public static final int CLASS_ST = 0x02;
    public static final int CLASS_STX = 0x03;
    public static final int CLASS_ALU = 0x04;
    public static final int CLASS_JMP = 0x05;
    public static final int CLASS_JMP32 = 0x06;
    public static final int CLASS_ALU64 = 0x07;
    public static final int CLASS_MASK = 0x07;

    /** Operand source: the immediate ({@code K}) or the source register ({@code X}). */
    public static final int SOURCE_IMMEDIATE = 0x00;
    public static final int SOURCE_REGISTER = 0x08;
    public static final int SOURCE_MASK = 0x08;

    /** Access sizes of loads and stores. */
    public static final int SIZE_WORD = 0x00;
    public static final int SIZE_HALF = 0x08;
    public static final int SIZE_BYTE = 0x10;
    public static final int SIZE_DOUBLE = 0x18;
    public static final int SIZE_MASK = 0x18;

    /**
     * Memory modes: IMM is {@code ld_imm64}, MEM a load or store through a register, ATOMIC a read-modify-write
     * of memory (class STX, the operation in the immediate).
     */
    public static final int MODE_IMMEDIATE = 0x00;
    public static final int MODE_MEMORY = 0x60;
    public static final int MODE_ATOMIC = 0xc0;
    public static final int MODE_MASK = 0xe0;

    /** ALU operations. */
    public static final int ALU_ADD = 0x00;
    public static final int ALU_SUB = 0x10;
    public static final int ALU_MUL = 0x20;
    public static final int ALU_DIV = 0x30;
    public static final int ALU_OR = 0x40;
    public static final int ALU_AND = 0x50;
    public static final int ALU_LSH = 0x60;
    public static final int ALU_RSH = 0x70;
    public static final int ALU_NEG = 0x80;
    public static final int ALU_MOD = 0x90;
    public static final int ALU_XOR = 0xa0;
    public static final int ALU_MOV = 0xb0;
    public static final int ALU_ARSH = 0xc0;
    /** Byte order conversion (class ALU): the source bit picks the target order, the immediate the width. */
    public static final int ALU_END = 0xd0;
    public static final int OPERATION_MASK = 0xf0;

    /** The source bit of {@link #ALU_END}: to little-endian (a truncation on x86) or to big-endian (a swap). */
    public static final int END_TO_LITTLE = 0x00;
    public static final int END_TO_BIG = 0x08;

    /** The immediate of an atomic instruction: {@code lock *(size *)(dst + off) += src}. */
    public static final int ATOMIC_ADD = 0x00;

    /** Jump operations; the conditional ones are listed in {@link BpfCondition}. */
    public static final int JMP_JA = 0x00;
    public static final int JMP_CALL = 0x80;
    public static final int JMP_EXIT = 0x90;

    /** The {@code src} field of an {@code ld_imm64} whose immediate is a map file descriptor. */
    public static final int PSEUDO_MAP_FD = 1;

    private BpfOpcode()
    {
    }
}
