package io.jvs.nativebindings.bpf;

/**
 * The eleven BPF registers. R0 holds results, R1 to R5 arguments (clobbered by calls), R6 to R9 survive
 * calls, R10 is the read-only frame pointer (the top of the 512-byte stack).
 */
public enum BpfRegister
{
    R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10;

    /**
     * @return the register number as encoded in an instruction.
     */
    public int number()
    {
        return ordinal();
    }
}
