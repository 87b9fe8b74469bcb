package io.jvs.nativebindings.bpf;

/**
 * Access sizes of BPF loads and stores, with their opcode bits.
 */
public enum BpfSize
{
    BYTE(1, BpfOpcode.SIZE_BYTE),
    HALF(2, BpfOpcode.SIZE_HALF),
    WORD(4, BpfOpcode.SIZE_WORD),
    DOUBLE(8, BpfOpcode.SIZE_DOUBLE);

    private final int bytes;
    private final int bits;

    BpfSize(final int bytes, final int bits)
    {
        this.bytes = bytes;
        this.bits = bits;
    }

    public int bytes()
    {
        return bytes;
    }

    /**
     * @return the size bits of the opcode.
     */
    public int opcodeBits()
    {
        return bits;
    }

    /**
     * @return the size encoded in an opcode.
     */
    public static BpfSize ofOpcode(final int code)
    {
        return switch (code & BpfOpcode.SIZE_MASK)
        {
            case BpfOpcode.SIZE_BYTE -> BYTE;
            case BpfOpcode.SIZE_HALF -> HALF;
            case BpfOpcode.SIZE_WORD -> WORD;
            default -> DOUBLE;
        };
    }
}
