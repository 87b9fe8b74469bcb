package io.jvs.core.net;

import java.util.Collection;

/**
 * An immutable set of addresses for the data path: open-addressed tables of primitives, one per family, probed
 * linearly from the top bits of the address's multiplicative hash (the fold of an IPv6 address). A lookup reads
 * a few array elements and allocates nothing; an instance may be shared by threads. The virtual addresses a
 * frame is dispatched by, the box's own addresses, the real servers' addresses.
 */
public final class AddressSet
{
    /** The kernel's hash_32 multiplier. */
    private static final int GOLDEN_RATIO_32 = 0x9E37_79B1;

    private final int[] v4;
    private final boolean[] v4Used;
    private final long[] v6High;
    private final long[] v6Low;
    private final boolean[] v6Used;
    private final int mask;
    private final int shift;

    /**
     * @param addresses the members, of either family.
     */
    public AddressSet(final Collection<IpAddress> addresses)
    {
        final int size = Integer.highestOneBit(Math.max(16, addresses.size() * 4) - 1) << 1;
        v4 = new int[size];
        v4Used = new boolean[size];
        v6High = new long[size];
        v6Low = new long[size];
        v6Used = new boolean[size];
        mask = size - 1;
        shift = Integer.SIZE - Integer.numberOfTrailingZeros(size);
        for (final IpAddress address : addresses)
        {
            if (address.isV6())
            {
                addV6(address.high(), address.low());
            }
            else
            {
                addV4(address.v4());
            }
        }
    }

    private void addV4(final int address)
    {
        int slot = slot(address);
        while (v4Used[slot] && v4[slot] != address)
        {
            slot = (slot + 1) & mask;
        }
        v4Used[slot] = true;
        v4[slot] = address;
    }

    private void addV6(final long high, final long low)
    {
        int slot = slot(AddressFold.fold(high, low));
        while (v6Used[slot] && !(v6High[slot] == high && v6Low[slot] == low))
        {
            slot = (slot + 1) & mask;
        }
        v6Used[slot] = true;
        v6High[slot] = high;
        v6Low[slot] = low;
    }

    /** @return whether the IPv4 address (host order) is in the set. */
    public boolean containsV4(final int address)
    {
        int slot = slot(address);
        while (v4Used[slot])
        {
            if (v4[slot] == address)
            {
                return true;
            }
            slot = (slot + 1) & mask;
        }
        return false;
    }

    /** @return whether the IPv6 address is in the set. */
    public boolean containsV6(final long high, final long low)
    {
        int slot = slot(AddressFold.fold(high, low));
        while (v6Used[slot])
        {
            if (v6High[slot] == high && v6Low[slot] == low)
            {
                return true;
            }
            slot = (slot + 1) & mask;
        }
        return false;
    }

    /** The top bits of the multiplicative hash: its best-mixed ones. */
    private int slot(final int fold)
    {
        return fold * GOLDEN_RATIO_32 >>> shift;
    }

    /** @return whether the address is in the set. */
    public boolean contains(final IpAddress address)
    {
        return address.isV6() ? containsV6(address.high(), address.low()) : containsV4(address.v4());
    }
}
