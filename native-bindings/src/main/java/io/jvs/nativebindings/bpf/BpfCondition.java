package io.jvs.nativebindings.bpf;

/**
 * The conditions of BPF conditional jumps, with their operation bits. Unsigned unless the name says
 * signed.
 */
public enum BpfCondition
{
    EQUAL(0x10),
    GREATER(0x20),
    GREATER_OR_EQUAL(0x30),
    ANY_BIT_SET(0x40),
    NOT_EQUAL(0x50),
    SIGNED_GREATER(0x60),
    SIGNED_GREATER_OR_EQUAL(0x70),
    LESS(0xa0),
    LESS_OR_EQUAL(0xb0),
    SIGNED_LESS(0xc0),
    SIGNED_LESS_OR_EQUAL(0xd0);

    private final int operation;

    BpfCondition(final int operation)
    {
        this.operation = operation;
    }

    /**
     * @return the operation bits of the opcode (high nibble).
     */
    public int operation()
    {
        return operation;
    }

    /**
     * @return the condition whose operation bits are {@code operation}, or null when it is not a condition.
     */
    public static BpfCondition of(final int operation)
    {
        for (final BpfCondition condition : values())
        {
            if (condition.operation == operation)
            {
                return condition;
            }
        }
        return null;
    }
}
