package io.jvs.core.net;

/**
 * How IPVS reduces an address to 32 bits before hashing it.
 */
public final class AddressFold
{
    private AddressFold()
    {
    }

    /**
     * @param high the first 64 bits of an IPv6 address.
     * @param low  the last 64 bits.
     * @return the XOR of the four 32-bit words, as the kernel folds IPv6 for dh, sh, lblc, lblcr and mh.
     */
    public static int fold(final long high, final long low)
    {
        return (int)(high >>> 32) ^ (int)high ^ (int)(low >>> 32) ^ (int)low;
    }
}
