package io.jvs.core.net;

/**
 * An address prefix such as {@code 10.0.0.0/8} or {@code fd00::/64}, for classification rules and routes.
 *
 * @param network the address with the bits past the prefix cleared.
 * @param length  the prefix length, 0..32 for IPv4 and 0..128 for IPv6.
 */
public record IpPrefix(IpAddress network, int length)
{
    public IpPrefix
    {
        final int max = network.isV6() ? 128 : 32;
        if (length < 0 || length > max)
        {
            throw new IllegalArgumentException("prefix length " + length + " is not in 0.." + max);
        }
        network = network.mask(length);
    }

    /**
     * Parses {@code ADDRESS/LENGTH}, or a bare address as a host prefix (/32 or /128).
     *
     * @throws IllegalArgumentException naming what is wrong.
     */
    public static IpPrefix parse(final String text)
    {
        final int slash = text.indexOf('/');
        if (slash < 0)
        {
            final IpAddress address = IpAddress.parse(text);
            return new IpPrefix(address, address.isV6() ? 128 : 32);
        }
        final IpAddress address = IpAddress.parse(text.substring(0, slash));
        final int length;
        try
        {
            length = Integer.parseInt(text.substring(slash + 1));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("\"" + text + "\": the prefix length is not a number");
        }
        return new IpPrefix(address, length);
    }

    public boolean isV6()
    {
        return network.isV6();
    }

    /**
     * @param v6   the family of the address.
     * @param high its first 64 bits (IPv6; ignored for IPv4).
     * @param low  its last 64 bits, or the IPv4 address in the low 32 bits.
     * @return true when the address is of this prefix's family and inside it.
     */
    public boolean contains(final boolean v6, final long high, final long low)
    {
        if (v6 != network.isV6())
        {
            return false;
        }
        if (!v6)
        {
            final long mask = length == 0 ? 0 : (0xFFFF_FFFFL << (32 - length)) & 0xFFFF_FFFFL;
            return (low & mask) == network.low();
        }
        final long highMask = length >= 64 ? -1L : (length == 0 ? 0 : -1L << (64 - length));
        final long lowMask = length <= 64 ? 0 : (length == 128 ? -1L : -1L << (128 - length));
        return (high & highMask) == network.high() && (low & lowMask) == network.low();
    }

    @Override
    public String toString()
    {
        return network + "/" + length;
    }
}
