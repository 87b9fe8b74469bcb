package io.jvs.core.sched;

/**
 * The two address hashes dh, sh, lblc and lblcr can bucket an address with, both over a 32-bit folded address
 * in host order (IPv6: the XOR of its four words, as IPVS folds it).
 * <ul>
 *   <li>{@link #MULTIPLICATIVE} (the default): {@code (key * 2654435761) & mask}, the low bits of the product
 *       modulo 2^32, as older kernels' {@code ip_vs_dh_hashkey}, {@code ip_vs_sh_hashkey} and
 *       {@code ip_vs_lblc_hashkey} computed it.</li>
 *   <li>{@link #KERNEL}: the current kernel's {@code hash_32(key, bits)}: the high bits of
 *       {@code key * 0x61C88647} modulo 2^32.</li>
 * </ul>
 */
public enum AddressHash
{
    MULTIPLICATIVE
    {
        @Override
        public int bucket(final int key, final int bits)
        {
            return (int)((key & 0xFFFF_FFFFL) * 2654435761L) & ((1 << bits) - 1);
        }
    },
    KERNEL
    {
        @Override
        public int bucket(final int key, final int bits)
        {
            return hash32(key, bits);
        }
    };

    /**
     * @param key  the folded address (plus port, for sh and mh with the port flag).
     * @param bits log2 of the table size, 1..30.
     * @return the bucket, 0..2^bits-1.
     */
    public abstract int bucket(int key, int bits);

    /**
     * The kernel's {@code hash_32} (include/linux/hash.h): golden-ratio multiply, keep the top bits.
     *
     * @param key  the value to hash.
     * @param bits how many bits to keep, 1..32.
     * @return the hash.
     */
    public static int hash32(final int key, final int bits)
    {
        return (int)((((key & 0xFFFF_FFFFL) * 0x61C8_8647L) & 0xFFFF_FFFFL) >>> (32 - bits));
    }

    /**
     * @param flags the service's flags.
     * @return the hash the service asked for.
     */
    public static AddressHash of(final SchedulerFlags flags)
    {
        return flags.kernelHash() ? KERNEL : MULTIPLICATIVE;
    }
}
