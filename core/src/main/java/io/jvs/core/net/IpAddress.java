package io.jvs.core.net;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/**
 * An IPv4 or IPv6 address as a value, for configuration and tools.
 * <p>
 * The address is held as two longs in network order: an IPv6 address is {@code high:low}; an IPv4
 * address lives in the low 32 bits of {@code low}. Parsing accepts literals only and never resolves
 * names, so a rules file cannot trigger DNS.
 */
public final class IpAddress implements Comparable<IpAddress>
{
    private final boolean v6;
    private final long high;
    private final long low;

    private IpAddress(final boolean v6, final long high, final long low)
    {
        this.v6 = v6;
        this.high = high;
        this.low = low;
    }

    /**
     * @param address an IPv4 address in host order (the first octet in the top byte).
     * @return the address.
     */
    public static IpAddress ofV4(final int address)
    {
        return new IpAddress(false, 0, address & 0xFFFF_FFFFL);
    }

    /**
     * @param high the first 64 bits of an IPv6 address, network order.
     * @param low  the last 64 bits.
     * @return the address.
     */
    public static IpAddress ofV6(final long high, final long low)
    {
        return new IpAddress(true, high, low);
    }

    /**
     * Parses a dotted-quad IPv4 literal or an IPv6 literal, optionally in square brackets.
     *
     * @param text the literal.
     * @return the address.
     * @throws IllegalArgumentException naming what is wrong when the text is not an address literal.
     */
    public static IpAddress parse(final String text)
    {
        String literal = text.trim();
        if (literal.startsWith("[") && literal.endsWith("]"))
        {
            literal = literal.substring(1, literal.length() - 1);
            if (literal.indexOf(':') < 0)
            {
                throw new IllegalArgumentException("not an IPv6 address in brackets: " + text);
            }
        }
        if (literal.indexOf(':') < 0)
        {
            return ofV4(parseDottedQuad(literal, text));
        }
        if (literal.indexOf('%') >= 0)
        {
            throw new IllegalArgumentException("scoped IPv6 addresses are not supported: " + text);
        }
        final InetAddress parsed;
        try
        {
            parsed = Inet6Address.ofLiteral(literal);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("not an IPv6 address: " + text, ex);
        }
        final byte[] bytes = parsed.getAddress();
        if (parsed instanceof Inet4Address)
        {
            // The JDK turns ::ffff:a.b.c.d into an IPv4 address; keep it IPv6 as the operator wrote it.
            return ofV6(0, 0xFFFF_0000_0000L | (toLong(bytes, 0, 4) & 0xFFFF_FFFFL));
        }
        return ofV6(toLong(bytes, 0, 8), toLong(bytes, 8, 8));
    }

    /**
     * @param address an IPv4 or IPv6 address (IPv4-mapped IPv6 addresses come as IPv4 from the JDK).
     * @return the same address.
     */
    public static IpAddress of(final InetAddress address)
    {
        final byte[] bytes = address.getAddress();
        return bytes.length == 4 ? ofV4((int)toLong(bytes, 0, 4)) : ofV6(toLong(bytes, 0, 8), toLong(bytes, 8, 8));
    }

    /**
     * @return the address as the JDK's type, for the socket and netlink APIs.
     */
    public InetAddress toInetAddress()
    {
        final byte[] bytes = new byte[v6 ? 16 : 4];
        if (v6)
        {
            for (int i = 0; i < 8; i++)
            {
                bytes[i] = (byte)(high >>> (56 - 8 * i));
                bytes[8 + i] = (byte)(low >>> (56 - 8 * i));
            }
        }
        else
        {
            for (int i = 0; i < 4; i++)
            {
                bytes[i] = (byte)(low >>> (24 - 8 * i));
            }
        }
        try
        {
            return InetAddress.getByAddress(bytes);
        }
        catch (final java.net.UnknownHostException ex)
        {
            throw new IllegalStateException("an address of " + bytes.length + " bytes", ex);
        }
    }

    private static int parseDottedQuad(final String literal, final String original)
    {
        final String[] parts = literal.split("\\.", -1);
        if (parts.length != 4)
        {
            throw new IllegalArgumentException("not an IPv4 address (need a.b.c.d): " + original);
        }
        int address = 0;
        for (final String part : parts)
        {
            if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit))
            {
                throw new IllegalArgumentException("not an IPv4 address: " + original);
            }
            final int octet = Integer.parseInt(part);
            if (octet > 255)
            {
                throw new IllegalArgumentException("IPv4 octet above 255 in " + original);
            }
            address = (address << 8) | octet;
        }
        return address;
    }

    private static long toLong(final byte[] bytes, final int offset, final int length)
    {
        long value = 0;
        for (int i = offset; i < offset + length; i++)
        {
            value = (value << 8) | (bytes[i] & 0xFF);
        }
        return value;
    }

    /**
     * @return true for IPv6.
     */
    public boolean isV6()
    {
        return v6;
    }

    /**
     * @return the IPv4 address in host order; meaningless for IPv6.
     */
    public int v4()
    {
        return (int)low;
    }

    /**
     * @return the first 64 bits of an IPv6 address (0 for IPv4).
     */
    public long high()
    {
        return high;
    }

    /**
     * @return the last 64 bits of an IPv6 address, or the IPv4 address in the low 32 bits.
     */
    public long low()
    {
        return low;
    }

    /**
     * The 32-bit fold IPVS hashes: the IPv4 address itself, or the XOR of an IPv6 address's four
     * 32-bit words.
     *
     * @return the fold in host order.
     */
    public int fold()
    {
        return v6 ? AddressFold.fold(high, low) : (int)low;
    }

    /**
     * Applies a netmask: a prefix length, 0..32 for IPv4 and 0..128 for IPv6.
     *
     * @param prefixLength the number of leading bits to keep.
     * @return the masked address.
     */
    public IpAddress mask(final int prefixLength)
    {
        if (!v6)
        {
            final long mask = prefixLength == 0 ? 0 : (0xFFFF_FFFFL << (32 - prefixLength)) & 0xFFFF_FFFFL;
            return new IpAddress(false, 0, low & mask);
        }
        final long highMask = prefixLength >= 64 ? -1L : (prefixLength == 0 ? 0 : -1L << (64 - prefixLength));
        final long lowMask = prefixLength <= 64 ? 0 : (prefixLength == 128 ? -1L : -1L << (128 - prefixLength));
        return new IpAddress(true, high & highMask, low & lowMask);
    }

    /**
     * Formats the address as inet_ntop does: dotted quad, or RFC 5952 IPv6 (lower case, the longest
     * run of two or more zero groups shortened to {@code ::}, IPv4-mapped in mixed notation).
     *
     * @return the text form, without brackets.
     */
    @Override
    public String toString()
    {
        if (!v6)
        {
            return ((low >>> 24) & 0xFF) + "." + ((low >>> 16) & 0xFF) + "." + ((low >>> 8) & 0xFF) + "." + (low & 0xFF);
        }
        final int[] groups = new int[8];
        for (int i = 0; i < 4; i++)
        {
            groups[i] = (int)(high >>> (48 - 16 * i)) & 0xFFFF;
            groups[i + 4] = (int)(low >>> (48 - 16 * i)) & 0xFFFF;
        }
        if (high == 0 && (low >>> 32) == 0xFFFF)
        {
            return "::ffff:" + ofV4((int)low);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; )
        {
            if (groups[i] != 0)
            {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0)
            {
                j++;
            }
            if (j - i > bestLength)
            {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        final StringBuilder text = new StringBuilder(39);
        for (int i = 0; i < 8; i++)
        {
            if (i == bestStart)
            {
                text.append("::");
                i += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':')
            {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[i]));
        }
        return text.toString();
    }

    /**
     * @return the address as ipvsadm writes it next to a port: IPv6 in brackets.
     */
    public String toBracketedString()
    {
        return v6 ? "[" + this + "]" : toString();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof IpAddress that && v6 == that.v6 && high == that.high && low == that.low;
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(high * 31 + low) ^ (v6 ? 1 : 0);
    }

    @Override
    public int compareTo(final IpAddress other)
    {
        if (v6 != other.v6)
        {
            return v6 ? 1 : -1;
        }
        final int byHigh = Long.compareUnsigned(high, other.high);
        return byHigh != 0 ? byHigh : Long.compareUnsigned(low, other.low);
    }
}
