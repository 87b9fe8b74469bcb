package io.jvs.core.net;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * An immutable set of address prefixes for the data path: whether an address lies in any of them. Per family, one
 * {@link AddressSet} of networks for each prefix length present, longest first; a lookup masks the address to each
 * length in turn and probes that set, so it costs one probe per distinct length, allocates nothing, and may be
 * shared by threads. The Java side of the programs' LPM tries (a {@code mark} statement's networks), which answer
 * the same question with the longest match.
 */
public final class PrefixSet
{
    /** The empty set: every lookup is false at the cost of one array length. */
    public static final PrefixSet EMPTY = new PrefixSet(List.of());

    private final int[] lengthsV4;
    private final AddressSet[] networksV4;
    private final int[] lengthsV6;
    private final AddressSet[] networksV6;

    /**
     * @param prefixes the members, of either family (duplicates are fine).
     */
    public PrefixSet(final Collection<IpPrefix> prefixes)
    {
        final TreeSet<Integer> v4 = new TreeSet<>();
        final TreeSet<Integer> v6 = new TreeSet<>();
        for (final IpPrefix prefix : prefixes)
        {
            (prefix.isV6() ? v6 : v4).add(prefix.length());
        }
        lengthsV4 = v4.descendingSet().stream().mapToInt(Integer::intValue).toArray();
        lengthsV6 = v6.descendingSet().stream().mapToInt(Integer::intValue).toArray();
        networksV4 = networks(prefixes, false, lengthsV4);
        networksV6 = networks(prefixes, true, lengthsV6);
    }

    private static AddressSet[] networks(final Collection<IpPrefix> prefixes, final boolean v6, final int[] lengths)
    {
        final AddressSet[] sets = new AddressSet[lengths.length];
        for (int i = 0; i < lengths.length; i++)
        {
            final List<IpAddress> networks = new ArrayList<>();
            for (final IpPrefix prefix : prefixes)
            {
                if (prefix.isV6() == v6 && prefix.length() == lengths[i])
                {
                    networks.add(prefix.network());
                }
            }
            sets[i] = new AddressSet(networks);
        }
        return sets;
    }

    /** @return true when the set holds no prefix of either family. */
    public boolean isEmpty()
    {
        return lengthsV4.length == 0 && lengthsV6.length == 0;
    }

    /** @return whether the IPv4 address (host order) lies in one of the IPv4 prefixes. */
    public boolean containsV4(final int address)
    {
        for (int i = 0; i < lengthsV4.length; i++)
        {
            final int length = lengthsV4[i];
            final int mask = length == 0 ? 0 : -1 << (Integer.SIZE - length);
            if (networksV4[i].containsV4(address & mask))
            {
                return true;
            }
        }
        return false;
    }

    /** @return whether the IPv6 address lies in one of the IPv6 prefixes. */
    public boolean containsV6(final long high, final long low)
    {
        for (int i = 0; i < lengthsV6.length; i++)
        {
            final int length = lengthsV6[i];
            final long highMask = length >= Long.SIZE ? -1L : length == 0 ? 0 : -1L << (Long.SIZE - length);
            final long lowMask = length <= Long.SIZE ? 0 :
                length == 2 * Long.SIZE ? -1L : -1L << (2 * Long.SIZE - length);
            if (networksV6[i].containsV6(high & highMask, low & lowMask))
            {
                return true;
            }
        }
        return false;
    }

    /** @return whether the address lies in one of the prefixes of its family. */
    public boolean contains(final IpAddress address)
    {
        return address.isV6() ? containsV6(address.high(), address.low()) : containsV4(address.v4());
    }
}
