package io.jvs.core.pipeline;

import java.util.Arrays;

/**
 * Finds a packet's virtual service: by firewall mark first, then (protocol, address, port), then
 * (protocol, address, port 0) for persistent catch-all services, as the kernel's ip_vs_service_find.
 * <p>
 * Immutable open-addressing tables of primitives, built on the control plane; a lookup is a hash and a
 * probe or two, with no allocation.
 */
public final class ServiceClassifier
{
    /** Returned when nothing matches. */
    public static final int NONE = -1;

    private static final int EMPTY = -1;

    /** IPv4 services: 1 << 56 | protocol << 48 | port << 32 | address, 0 for an empty slot. */
    private final long[] v4Keys;
    private final int[] v4Services;
    private final int v4Mask;
    private final boolean anyV4PortZero;
    private final long[] keyHigh;
    private final long[] keyLow;
    /** family << 24 | protocol << 16 | port, or EMPTY. */
    private final int[] keyMeta;
    private final int[] service;
    private final int mask;
    private final boolean anyPortZero;
    private final long[] markKeys;
    private final int[] markServices;
    private final int markMask;

    private ServiceClassifier(final Builder builder)
    {
        final int entries = builder.count;
        int size = 16;
        while (size < entries * 2)
        {
            size <<= 1;
        }
        keyHigh = new long[size];
        keyLow = new long[size];
        keyMeta = new int[size];
        service = new int[size];
        Arrays.fill(keyMeta, EMPTY);
        mask = size - 1;
        boolean portZero = false;
        for (int i = 0; i < entries; i++)
        {
            final int meta = builder.meta[i];
            int slot = hash(builder.high[i], builder.low[i], meta) & mask;
            while (keyMeta[slot] != EMPTY)
            {
                slot = (slot + 1) & mask;
            }
            keyHigh[slot] = builder.high[i];
            keyLow[slot] = builder.low[i];
            keyMeta[slot] = meta;
            service[slot] = builder.service[i];
            portZero |= (meta & 0xFFFF) == 0;
        }
        anyPortZero = portZero;

        int v4Size = 16;
        while (v4Size < entries * 2)
        {
            v4Size <<= 1;
        }
        v4Keys = new long[v4Size];
        v4Services = new int[v4Size];
        v4Mask = v4Size - 1;
        boolean v4PortZero = false;
        for (int i = 0; i < entries; i++)
        {
            final int meta = builder.meta[i];
            if ((meta >>> 24) != 4)
            {
                continue;
            }
            final long key = v4Key(meta >>> 16 & 0xFF, builder.low[i], meta & 0xFFFF);
            int slot = v4Slot(key) & v4Mask;
            while (v4Keys[slot] != 0)
            {
                slot = (slot + 1) & v4Mask;
            }
            v4Keys[slot] = key;
            v4Services[slot] = builder.service[i];
            v4PortZero |= (meta & 0xFFFF) == 0;
        }
        anyV4PortZero = v4PortZero;

        int markSize = 16;
        while (markSize < builder.markCount * 2)
        {
            markSize <<= 1;
        }
        markKeys = new long[markSize];
        markServices = new int[markSize];
        Arrays.fill(markServices, EMPTY);
        markMask = markSize - 1;
        for (int i = 0; i < builder.markCount; i++)
        {
            final long key = builder.marks[i];
            int slot = mix(key) & markMask;
            while (markServices[slot] != EMPTY)
            {
                slot = (slot + 1) & markMask;
            }
            markKeys[slot] = key;
            markServices[slot] = builder.markService[i];
        }
    }

    private static long v4Key(final int protocol, final long address, final int port)
    {
        return 1L << 56 | (long)protocol << 48 | (long)port << 32 | (address & 0xFFFF_FFFFL);
    }

    private static int v4Slot(final long key)
    {
        return (int)((key * 0x9E37_79B9_7F4A_7C15L) >>> 40);
    }

    private int lookupV4(final long key)
    {
        int slot = v4Slot(key) & v4Mask;
        while (true)
        {
            final long found = v4Keys[slot];
            if (found == key)
            {
                return v4Services[slot];
            }
            if (found == 0)
            {
                return NONE;
            }
            slot = (slot + 1) & v4Mask;
        }
    }

    private static int meta(final boolean v6, final int protocol, final int port)
    {
        return (v6 ? 6 : 4) << 24 | protocol << 16 | port;
    }

    private static int hash(final long high, final long low, final int meta)
    {
        final long h = (low ^ high * 0x9E37_79B9_7F4A_7C15L ^ (long)meta << 32) * 0xBF58_476D_1CE4_E5B9L;
        return (int)(h >>> 32);
    }

    private static int mix(final long key)
    {
        final long h = key * 0x9E37_79B9_7F4A_7C15L;
        return (int)(h ^ (h >>> 32));
    }

    private static long markKey(final int firewallMark, final boolean v6)
    {
        return (firewallMark & 0xFFFF_FFFFL) << 1 | (v6 ? 1 : 0);
    }

    /**
     * @param firewallMark the packet's mark, 0 for none.
     * @param v6           the packet's family (a mark service is per family too).
     * @param protocol     its IP protocol.
     * @param high         destination address, first 64 bits (0 for IPv4).
     * @param low          destination address, last 64 bits or the IPv4 address.
     * @param port         destination port.
     * @return the service slot, or {@link #NONE}.
     */
    public int lookup(
        final int firewallMark, final boolean v6, final int protocol, final long high, final long low, final int port)
    {
        if (firewallMark != 0)
        {
            final int byMark = lookupMark(markKey(firewallMark, v6));
            if (byMark != NONE)
            {
                return byMark;
            }
        }
        if (!v6)
        {
            final int exact = lookupV4(v4Key(protocol, low, port));
            return exact != NONE || !anyV4PortZero ? exact : lookupV4(v4Key(protocol, low, 0));
        }
        final int exact = lookupAddress(high, low, meta(v6, protocol, port));
        if (exact != NONE || !anyPortZero)
        {
            return exact;
        }
        return lookupAddress(high, low, meta(v6, protocol, 0));
    }

    private int lookupAddress(final long high, final long low, final int meta)
    {
        int slot = hash(high, low, meta) & mask;
        while (true)
        {
            final int slotMeta = keyMeta[slot];
            if (slotMeta == EMPTY)
            {
                return NONE;
            }
            if (slotMeta == meta && keyLow[slot] == low && keyHigh[slot] == high)
            {
                return service[slot];
            }
            slot = (slot + 1) & mask;
        }
    }

    private int lookupMark(final long key)
    {
        int slot = mix(key) & markMask;
        while (true)
        {
            final int found = markServices[slot];
            if (found == EMPTY)
            {
                return NONE;
            }
            if (markKeys[slot] == key)
            {
                return found;
            }
            slot = (slot + 1) & markMask;
        }
    }

    /**
     * Whether a service listens on this address, whatever its protocol and port: one of jvs's virtual addresses.
     * A scan of the table, for the exception path only (an echo request to a virtual address).
     *
     * @param v6   the address's family.
     * @param high its high word (0 for IPv4).
     * @param low  its low word (IPv4 in the low 32 bits).
     * @return true if some address service has it.
     */
    public boolean isVirtualAddress(final boolean v6, final long high, final long low)
    {
        final int family = v6 ? 6 : 4;
        for (int slot = 0; slot < keyMeta.length; slot++)
        {
            final int meta = keyMeta[slot];
            if (meta != EMPTY && meta >>> 24 == family && keyLow[slot] == low && keyHigh[slot] == high)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Collects the services of a configuration.
     */
    public static final class Builder
    {
        private long[] high = new long[16];
        private long[] low = new long[16];
        private int[] meta = new int[16];
        private int[] service = new int[16];
        private int count;
        private long[] marks = new long[16];
        private int[] markService = new int[16];
        private int markCount;

        public Builder addAddress(
            final boolean v6, final int protocol, final long addressHigh, final long addressLow, final int port,
            final int slot)
        {
            if (count == meta.length)
            {
                high = Arrays.copyOf(high, count * 2);
                low = Arrays.copyOf(low, count * 2);
                meta = Arrays.copyOf(meta, count * 2);
                service = Arrays.copyOf(service, count * 2);
            }
            high[count] = addressHigh;
            low[count] = addressLow;
            this.meta[count] = meta(v6, protocol, port);
            this.service[count] = slot;
            count++;
            return this;
        }

        public Builder addMark(final int firewallMark, final boolean v6, final int slot)
        {
            if (markCount == marks.length)
            {
                marks = Arrays.copyOf(marks, markCount * 2);
                markService = Arrays.copyOf(markService, markCount * 2);
            }
            marks[markCount] = markKey(firewallMark, v6);
            markService[markCount] = slot;
            markCount++;
            return this;
        }

        public ServiceClassifier build()
        {
            return new ServiceClassifier(this);
        }
    }
}
