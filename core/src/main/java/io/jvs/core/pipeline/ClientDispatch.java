package io.jvs.core.pipeline;

import java.util.Collection;
import java.util.List;

import io.jvs.core.net.AddressFold;
import io.jvs.core.net.AddressSet;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.net.PrefixSet;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.L4Headers;

/**
 * Which worker owns a client: every frame of a connection, in both directions, must reach the worker whose
 * tables hold it, so the worker is a function of the client's address alone (ports are left out so that
 * later fragments, which carry none, follow their first). The daemon's AF_PACKET fanout program computes the
 * same function in BPF ({@code io.jvs.nativebindings.bpf.FanoutPrograms}), replay uses it to share a capture
 * between its workers, and an AF_XDP worker that receives a frame of another worker's client hands it over.
 * <p>
 * The client's address in a frame, untagged or behind up to {@link EthernetHeader#MAX_TAGS} VLAN tags:
 * <ul>
 *   <li>the source of a frame to a virtual address (a client's request), the destination of any other (a
 *       real server's NAT reply); a virtual address is one of the virtual services' addresses or, when none of
 *       them is, an address in one of the virtual prefixes (a {@code mark} statement's destination network),
 *       the order in which the fanout program consults its hash maps and its LPM tries;</li>
 *   <li>for an ICMP or ICMPv6 error, the same rule turned round for the packet it quotes, which went the
 *       other way: the quoted destination when the quoted source is a virtual address (a client-side
 *       router's error about a reply), else the quoted source (a real server's error about a request,
 *       which quotes client to real server). These are the two errors {@code IcmpErrors} handles; and for an
 *       IPv4 error quoting IP in IP with the inner header whole (a router's error about a packet jvs tunnelled,
 *       which quotes box to real server around client to VIP), the same rule for the inner packet;</li>
 *   <li>worker 0 for anything else: not IP, or cut short before the addresses.</li>
 * </ul>
 * The address is reduced to 32 bits (IPv6: the XOR of its four words, as IPVS folds it), multiplied by
 * 2654435761, Knuth's golden-ratio multiplier (older kernels' {@code ip_vs_sh_hashkey} used it too), and the
 * top 16 bits of the 32-bit product, which every input bit reaches, are reduced modulo the worker count.
 * Everything is 32-bit unsigned arithmetic, which BPF's ALU32 instructions do exactly.
 * <p>
 * {@link #workerOf(long, int)} is for the data path: it allocates nothing and throws nothing. An instance is
 * immutable and may be shared by threads.
 */
public final class ClientDispatch
{
    /**
     * 2654435761, the multiplier of older kernels' {@code ip_vs_sh_hashkey} (not the current {@code hash_32}'s
     * {@code GOLDEN_RATIO_32}, 0x61C88647).
     */
    public static final int MULTIPLIER = 0x9E37_79B1;
    /** The hash keeps 16 bits, so more workers than this would leave some without clients. */
    public static final int MAX_WORKERS = 1 << 16;

    private static final int PROTOCOL_ICMP = Ipv4Header.PROTOCOL_ICMP;
    private static final int PROTOCOL_ICMPV6 = Ipv4Header.PROTOCOL_ICMPV6;
    private static final int PROTOCOL_IPIP = Ipv4Header.PROTOCOL_IPIP;
    private static final int IPV4_MIN_HEADER = 20;
    private static final int IPV4_SOURCE = 12;
    private static final int IPV4_DESTINATION = 16;
    private static final int IPV6_HEADER = 40;
    private static final int IPV6_NEXT_HEADER = 6;
    private static final int IPV6_SOURCE = 8;
    private static final int IPV6_DESTINATION = 24;
    private static final int ICMP_HEADER = 8;
    private static final int FRAGMENT_OFFSET_MASK = 0x1FFF;

    private final int workers;
    private final AddressSet virtual;
    private final PrefixSet virtualPrefixes;

    /**
     * @param workers          how many workers share the frames, 1..{@link #MAX_WORKERS}.
     * @param virtualAddresses the virtual services' addresses (IPv4 and IPv6 mixed; duplicates are fine).
     * @throws IllegalArgumentException when the worker count is out of range.
     */
    public ClientDispatch(final int workers, final Collection<IpAddress> virtualAddresses)
    {
        this(workers, virtualAddresses, List.of());
    }

    /**
     * @param virtualPrefixes networks whose every address is virtual as well (IPv4 and IPv6 mixed).
     * @throws IllegalArgumentException when the worker count is out of range.
     */
    public ClientDispatch(final int workers, final Collection<IpAddress> virtualAddresses,
        final Collection<IpPrefix> virtualPrefixes)
    {
        if (workers < 1 || workers > MAX_WORKERS)
        {
            throw new IllegalArgumentException("worker count " + workers + " not in 1.." + MAX_WORKERS);
        }
        this.workers = workers;
        this.virtual = new AddressSet(virtualAddresses);
        this.virtualPrefixes = virtualPrefixes.isEmpty() ? PrefixSet.EMPTY : new PrefixSet(virtualPrefixes);
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

    /**
     * @return the worker that owns {@code client} ({@link IpAddress#fold()} through {@link #workerOf(int, int)}).
     */
    public static int workerOf(final IpAddress client, final int workers)
    {
        return workerOf(client.fold(), workers);
    }

    public int workers()
    {
        return workers;
    }

    /**
     * @return whether {@code address} is one of the virtual addresses this dispatch was made with, or in one of
     *         its virtual prefixes.
     */
    public boolean isVirtual(final IpAddress address)
    {
        return address.isV6() ? isVirtualV6(address.high(), address.low()) : isVirtualV4(address.v4());
    }

    private boolean isVirtualV4(final int address)
    {
        return virtual.containsV4(address) || virtualPrefixes.containsV4(address);
    }

    private boolean isVirtualV6(final long high, final long low)
    {
        return virtual.containsV6(high, low) || virtualPrefixes.containsV6(high, low);
    }

    /**
     * @param frame  the address of an Ethernet frame, VLAN tags in place.
     * @param length its length in bytes.
     * @return the worker, 0..workers-1, whose client the frame belongs to.
     */
    public int workerOf(final long frame, final int length)
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
        final int headerLength = (Frames.u8(ip) & 0xF) * 4;
        final boolean firstFragment = (Frames.u16(ip + 6) & FRAGMENT_OFFSET_MASK) == 0;
        if (Frames.u8(ip + 9) == PROTOCOL_ICMP && firstFragment && headerLength >= IPV4_MIN_HEADER &&
            available >= headerLength + ICMP_HEADER + IPV4_MIN_HEADER &&
            L4Headers.isIcmpError(Frames.u8(ip + headerLength)))
        {
            final long quoted = ip + headerLength + ICMP_HEADER;
            final int quotedLength = (Frames.u8(quoted) & 0xF) * 4;
            if (Frames.u8(quoted + 9) == PROTOCOL_IPIP && quotedLength >= IPV4_MIN_HEADER &&
                available >= headerLength + ICMP_HEADER + quotedLength + IPV4_MIN_HEADER)
            {
                // A router's error about a packet jvs tunnelled (box to real server): the client's packet is inside.
                final long inner = quoted + quotedLength;
                return choiceV4(Frames.i32(inner + IPV4_DESTINATION), Frames.i32(inner + IPV4_SOURCE));
            }
            return choiceV4(Frames.i32(quoted + IPV4_DESTINATION), Frames.i32(quoted + IPV4_SOURCE));
        }
        return choiceV4(Frames.i32(ip + IPV4_SOURCE), Frames.i32(ip + IPV4_DESTINATION));
    }

    /** {@code address} is the client's unless it is a virtual address; then its {@code peer} is. */
    private int choiceV4(final int peer, final int address)
    {
        return workerOf(isVirtualV4(address) ? peer : address, workers);
    }

    private int workerOfV6(final long ip, final int available)
    {
        if (Frames.u8(ip + IPV6_NEXT_HEADER) == PROTOCOL_ICMPV6 &&
            available >= IPV6_HEADER + ICMP_HEADER + IPV6_HEADER && L4Headers.isIcmpv6Error(Frames.u8(ip + IPV6_HEADER)))
        {
            return choiceV6(ip + IPV6_HEADER + ICMP_HEADER + IPV6_DESTINATION,
                ip + IPV6_HEADER + ICMP_HEADER + IPV6_SOURCE);
        }
        return choiceV6(ip + IPV6_SOURCE, ip + IPV6_DESTINATION);
    }

    /** As {@link #choiceV4}, the addresses being where they stand in the frame. */
    private int choiceV6(final long peer, final long address)
    {
        final long high = Frames.i64(address);
        final long low = Frames.i64(address + 8);
        final int client = isVirtualV6(high, low) ?
            AddressFold.fold(Frames.i64(peer), Frames.i64(peer + 8)) : AddressFold.fold(high, low);
        return workerOf(client, workers);
    }
}
