package io.jvs.nativebindings.bpf;

/**
 * One {@code struct bpf_insn} packed into a {@code long} whose little-endian bytes are exactly the
 * kernel's 8-byte layout:
 * <pre>
 *   byte 0     code
 *   byte 1     dst_reg (low nibble) | src_reg (high nibble)
 *   bytes 2-3  off  (s16)
 *   bytes 4-7  imm  (s32)
 * </pre>
 * A program is a {@code long[]} of these; {@code ld_imm64} takes two of them.
 */
public final class BpfInstruction
{
    /** Bytes per instruction slot. */
    public static final int SIZE_BYTES = 8;

    private BpfInstruction()
    {
    }

    /**
     * @return the packed instruction.
     * @throws IllegalArgumentException when a field does not fit.
     */
    public static long encode(final int code, final int dst, final int src, final int offset, final int immediate)
    {
        if ((code & ~0xff) != 0 || (dst & ~0xf) != 0 || (src & ~0xf) != 0)
        {
            throw new IllegalArgumentException("code " + code + " dst " + dst + " src " + src + " out of range");
        }
        if (offset < Short.MIN_VALUE || offset > Short.MAX_VALUE)
        {
            throw new IllegalArgumentException("offset " + offset + " does not fit 16 bits");
        }
        return code | (long)dst << 8 | (long)src << 12 | (offset & 0xffffL) << 16 | (long)immediate << 32;
    }

    public static int code(final long instruction)
    {
        return (int)(instruction & 0xff);
    }

    public static int dst(final long instruction)
    {
        return (int)(instruction >>> 8 & 0xf);
    }

    public static int src(final long instruction)
    {
        return (int)(instruction >>> 12 & 0xf);
    }

    public static int offset(final long instruction)
    {
        return (short)(instruction >>> 16);
    }

    public static int immediate(final long instruction)
    {
        return (int)(instruction >>> 32);
    }

    /**
     * @return the instruction with its immediate replaced (for map relocation).
     */
    public static long withImmediate(final long instruction, final int immediate)
    {
        return instruction & 0xffff_ffffL | (long)immediate << 32;
    }

    /**
     * @return the fields as in the kernel's tables: {@code code=0x61 dst=2 src=1 off=16 imm=0}.
     */
    public static String toString(final long instruction)
    {
        return String.format("code=0x%02x dst=%d src=%d off=%d imm=%d", code(instruction), dst(instruction),
            src(instruction), offset(instruction), immediate(instruction));
    }
}
