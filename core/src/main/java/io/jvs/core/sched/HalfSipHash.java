package io.jvs.core.sched;

/**
 * SipHash-1-3 of one 32-bit word, truncated to 32 bits: the construction the kernel's {@code hsiphash}
 * uses on 64-bit machines, which ip_vs_mh.c hashes its keys with. (jvs's mh aims at the kernel's algorithm and
 * its properties, not at bit parity with its tables; this follows the published SipHash algorithm.)
 */
final class HalfSipHash
{
    private HalfSipHash()
    {
    }

    /**
     * @param k0    first key word.
     * @param k1    second key word.
     * @param value the 32-bit message, hashed as its 4 little-endian bytes.
     * @return the low 32 bits of the 64-bit SipHash-1-3 result.
     */
    static int hash(final long k0, final long k1, final int value)
    {
        long v0 = 0x736F_6D65_7073_6575L ^ k0;
        long v1 = 0x646F_7261_6E64_6F6DL ^ k1;
        long v2 = 0x6C79_6765_6E65_7261L ^ k0;
        long v3 = 0x7465_6462_7974_6573L ^ k1;
        final long block = (4L << 56) | (value & 0xFFFF_FFFFL);

        v3 ^= block;
        // one compression round
        v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
        v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
        v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
        v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        v0 ^= block;

        v2 ^= 0xFF;
        // three finalisation rounds
        for (int i = 0; i < 3; i++)
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return (int)(v0 ^ v1 ^ v2 ^ v3);
    }
}
