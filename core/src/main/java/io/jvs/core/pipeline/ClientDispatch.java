package io.jvs.core.pipeline;

/**
 * Which worker owns a client: every frame of a connection, in both directions, must reach the worker whose
 * tables hold it, so the worker is a function of the client's address alone (ports are left out so that
 * later fragments, which carry none, follow their first). The daemon's AF_PACKET fanout program computes the
 * same function in BPF, and an AF_XDP worker that receives a frame of another worker's client hands it over.
 * <p>
 * The address is reduced to 32 bits (IPv6: the XOR of its four words, as IPVS folds it), multiplied by the
 * golden-ratio constant of the kernel's {@code hash_32} (2654435761, the seeds' multiplicative hash), and the
 * top 16 bits of the 32-bit product, which every input bit reaches, are reduced modulo the worker count.
 * Everything is 32-bit unsigned arithmetic, which BPF's ALU32 instructions do exactly.
 */
public final class ClientDispatch
{
    /** The multiplier of the kernel's hash_32 ({@code GOLDEN_RATIO_32}). */
    public static final int MULTIPLIER = 0x9E37_79B1;

    private ClientDispatch()
    {
    }

    /**
     * @param address32 the client's IPv4 address in host order (first octet in the top byte), or its IPv6 fold
     *                  ({@link io.jvs.core.net.AddressFold#fold}).
     * @param workers   how many workers, 1 and up.
     * @return the owning worker, 0..workers-1.
     */
    public static int workerOf(final int address32, final int workers)
    {
        final int product = address32 * MULTIPLIER;
        return (product >>> 16) % workers;
    }
}
