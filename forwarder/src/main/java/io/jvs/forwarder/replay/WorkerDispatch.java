package io.jvs.forwarder.replay;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.net.IpAddress;

import java.util.Collection;

/**
 * Software receive-side scaling for a replay with several workers: every frame of a client's traffic goes
 * to the same worker, in both directions, because a worker's connection and fragment tables are its own.
 * <p>
 * The key is the client's address: the source of a frame sent to a virtual address, the destination of
 * anything else (a NAT server's reply), and for an ICMP error the destination of the packet it quotes
 * (the quoted packet went from the virtual service to the client). Ports are left out so that later
 * fragments, which carry none, follow their first. What cannot be parsed goes to worker 0.
 */
final class WorkerDispatch
{
    private static final int PROTOCOL_ICMP = 1;
    private static final int PROTOCOL_ICMPV6 = 58;
    private static final int IPV4_MIN_HEADER = 20;
    private static final int IPV6_HEADER = 40;

    private final int workers;
    private final long[] vipHigh;
    private final long[] vipLow;
    private final boolean[] vipUsed;
    private final int mask;

    /**
     * @param workers      how many workers share the frames.
     * @param virtualAddresses the addresses of the virtual services.
     */
    WorkerDispatch(final int workers, final Collection<IpAddress> virtualAddresses)
    {
        this.workers = workers;
        final int size = Integer.highestOneBit(Math.max(16, virtualAddresses.size() * 4) - 1) << 1;
        this.vipHigh = new long[size];
        this.vipLow = new long[size];
        this.vipUsed = new boolean[size];
        this.mask = size - 1;
        for (final IpAddress address : virtualAddresses)
        {
            final long high = address.isV6() ? address.high() : 0;
            final long low = address.isV6() ? address.low() : address.v4() & 0xFFFF_FFFFL;
            int slot = spread(high, low) & mask;
            while (vipUsed[slot] && !(vipHigh[slot] == high && vipLow[slot] == low))
            {
                slot = (slot + 1) & mask;
            }
            vipUsed[slot] = true;
            vipHigh[slot] = high;
            vipLow[slot] = low;
        }
    }

    /**
     * @return the worker, 0..workers-1, that handles this frame.
     */
    int workerOf(final long frame, final int length)
    {
        if (workers == 1)
        {
            return 0;
        }
        int offset = EthernetHeader.TYPE_OFFSET;
        if (length < offset + 2)
        {
            return 0;
        }
        int type = Frames.u16(frame + offset);
        for (int tags = 0; EthernetHeader.isVlanTag(type) && tags < EthernetHeader.MAX_TAGS; tags++)
        {
            offset += EthernetHeader.TAG_LENGTH;
            if (length < offset + 2)
            {
                return 0;
            }
            type = Frames.u16(frame + offset);
        }
        final long ip = frame + offset + 2;
        final int available = length - offset - 2;
        if (type == EthernetHeader.TYPE_IPV4 && available >= IPV4_MIN_HEADER)
        {
            return workerOfV4(ip, available);
        }
        if (type == EthernetHeader.TYPE_IPV6 && available >= IPV6_HEADER)
        {
            return workerOfV6(ip, available);
        }
        return 0;
    }

    private int workerOfV4(final long ip, final int available)
    {
        final long source = Frames.i32(ip + 12) & 0xFFFF_FFFFL;
        final long destination = Frames.i32(ip + 16) & 0xFFFF_FFFFL;
        final int headerLength = (Frames.u8(ip) & 0xF) * 4;
        final boolean firstFragment = (Frames.u16(ip + 6) & 0x1FFF) == 0;
        if (Frames.u8(ip + 9) == PROTOCOL_ICMP && firstFragment && headerLength >= IPV4_MIN_HEADER &&
            available >= headerLength + 8 + IPV4_MIN_HEADER)
        {
            final int icmpType = Frames.u8(ip + headerLength);
            if (icmpType == 3 || icmpType == 4 || icmpType == 5 || icmpType == 11 || icmpType == 12)
            {
                return pick(0, Frames.i32(ip + headerLength + 8 + 16) & 0xFFFF_FFFFL);
            }
        }
        return isVirtual(0, destination) ? pick(0, source) : pick(0, destination);
    }

    private int workerOfV6(final long ip, final int available)
    {
        final long sourceHigh = Frames.i64(ip + 8);
        final long sourceLow = Frames.i64(ip + 16);
        final long destinationHigh = Frames.i64(ip + 24);
        final long destinationLow = Frames.i64(ip + 32);
        if (Frames.u8(ip + 6) == PROTOCOL_ICMPV6 && available >= IPV6_HEADER + 8 + IPV6_HEADER)
        {
            final int icmpType = Frames.u8(ip + IPV6_HEADER);
            if (icmpType >= 1 && icmpType <= 4)
            {
                final long quoted = ip + IPV6_HEADER + 8;
                return pick(Frames.i64(quoted + 24), Frames.i64(quoted + 32));
            }
        }
        return isVirtual(destinationHigh, destinationLow) ? pick(sourceHigh, sourceLow) :
            pick(destinationHigh, destinationLow);
    }

    private boolean isVirtual(final long high, final long low)
    {
        int slot = spread(high, low) & mask;
        while (vipUsed[slot])
        {
            if (vipHigh[slot] == high && vipLow[slot] == low)
            {
                return true;
            }
            slot = (slot + 1) & mask;
        }
        return false;
    }

    private int pick(final long high, final long low)
    {
        return Integer.remainderUnsigned(spread(high, low), workers);
    }

    private static int spread(final long high, final long low)
    {
        long h = (high * 0x9E37_79B9_7F4A_7C15L) ^ low;
        h ^= h >>> 33;
        h *= 0xFF51_AFD7_ED55_8CCDL;
        h ^= h >>> 33;
        return (int)h;
    }
}
