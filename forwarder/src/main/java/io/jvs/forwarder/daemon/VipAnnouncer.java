package io.jvs.forwarder.daemon;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.ArpHeader;
import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.NeighbourSolicitationFilter;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.SockaddrLl;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Answers ARP requests and IPv6 neighbour solicitations for the VIPs ({@code vip-arp on}) when the operator has not
 * put them on the box, and announces a VIP when it appears (gratuitous ARP, unsolicited neighbour advertisement),
 * so that routers and clients on the link send its traffic to jvs.
 * <p>
 * The kernel still receives ARP and neighbour discovery on every interface jvs owns (the XDP program passes them,
 * the AF_PACKET steal never drops them), but ignores requests for addresses it does not have. So the announcer
 * keeps two AF_PACKET {@code SOCK_RAW} sockets of its own per interface: one bound to {@code ETH_P_ARP}, and one
 * bound to {@code ETH_P_IPV6} behind the {@link NeighbourSolicitationFilter}, which keeps only solicitations, and in
 * all-multicast mode ({@code PACKET_MR_ALLMULTI}): a solicitation goes to the target's solicited-node group,
 * which a NIC's multicast filter would otherwise drop for an address the kernel has not joined.
 * <p>
 * Control path, the conductor's thread only: {@link #poll} and {@link #announce} allocate a little but never
 * block (every call is {@code MSG_DONTWAIT}); a frame that cannot be sent is counted, not thrown. A VIP that is
 * the interface's own address is left to the kernel, which answers it already.
 */
public final class VipAnnouncer implements AutoCloseable
{
    /**
     * An interface the announcer answers on.
     *
     * @param name    for messages.
     * @param ifindex its index in the announcer's namespace.
     * @param mac     its MAC, the low 48 bits (the first octet in bits 47..40): the address the answers give.
     * @param ipv4    its own IPv4 address, or null.
     * @param ipv6    its own IPv6 address, or null.
     */
    public record Interface(String name, int ifindex, long mac, IpAddress ipv4, IpAddress ipv6)
    {
        /** Checks the fields. */
        public Interface
        {
            Objects.requireNonNull(name, "name");
            if (ifindex <= 0)
            {
                throw new IllegalArgumentException("interface " + name + ": ifindex " + ifindex + " is not positive");
            }
            if ((mac & ~MAC_MASK) != 0 || mac == 0 || (mac & MULTICAST_BIT) != 0)
            {
                throw new IllegalArgumentException("interface " + name + ": MAC " + Long.toHexString(mac) +
                    " is not a 48-bit unicast address");
            }
            if (ipv4 != null && ipv4.isV6() || ipv6 != null && !ipv6.isV6())
            {
                throw new IllegalArgumentException("interface " + name + ": ipv4 " + ipv4 + " / ipv6 " + ipv6 +
                    " are of the wrong family");
            }
        }

        /**
         * @param address six bytes, as an interface's hardware address is read (SIOCGIFHWADDR, sysfs, netlink).
         * @return the form {@link #mac} takes.
         */
        public static long macOf(final byte[] address)
        {
            if (address.length != 6)
            {
                throw new IllegalArgumentException("a MAC has 6 bytes, not " + address.length);
            }
            long mac = 0;
            for (final byte b : address)
            {
                mac = mac << 8 | b & 0xFF;
            }
            return mac;
        }
    }

    /** SO_ATTACH_BPF (asm-generic/socket.h), at SOL_SOCKET: the value is a program fd. */
    static final int SO_ATTACH_BPF = 50;
    /** PACKET_ADD_MEMBERSHIP and PACKET_MR_ALLMULTI (linux/if_packet.h), with a struct packet_mreq. */
    private static final int PACKET_ADD_MEMBERSHIP = 1;
    private static final int PACKET_MR_ALLMULTI = 2;
    /** struct packet_mreq: int mr_ifindex, unsigned short mr_type, mr_alen, unsigned char mr_address[8]. */
    private static final int PACKET_MREQ_SIZE = 16;
    private static final int RECEIVE_BUFFER = 1 << 16;
    /** Frames read from one socket per {@link #poll}, so a flood cannot hold the conductor. */
    private static final int DRAIN_LIMIT = 256;

    private static final long MAC_MASK = 0xFFFF_FFFF_FFFFL;
    private static final long MULTICAST_BIT = 1L << 40;
    private static final long BROADCAST_MAC = MAC_MASK;
    /** 33:33 followed by the last 32 bits of ff02::1 (RFC 2464). */
    private static final long ALL_NODES_MAC = 0x3333_0000_0001L;
    private static final long ALL_NODES_HIGH = 0xFF02_0000_0000_0000L;
    private static final long ALL_NODES_LOW = 1;
    /** ff02::1:ff00:0/104 (RFC 4291). */
    private static final long SOLICITED_NODE_HIGH = 0xFF02_0000_0000_0000L;
    private static final long SOLICITED_NODE_LOW = 0x0000_0001_FF00_0000L;

    private static final int ETH_HEADER = 14;
    private static final int ETH_DESTINATION = 0;
    private static final int ETH_SOURCE = 6;
    private static final int ETH_TYPE = 12;
    private static final int ARP_FRAME = ETH_HEADER + ArpHeader.LENGTH;

    private static final int IPV6_HEADER = 40;
    private static final int IPV6_PAYLOAD_LENGTH = 4;
    private static final int IPV6_NEXT_HEADER = 6;
    private static final int IPV6_HOP_LIMIT = 7;
    private static final int IPV6_SOURCE = 8;
    private static final int IPV6_DESTINATION = 24;
    private static final int IPPROTO_ICMPV6 = 58;
    /** RFC 4861: neighbour discovery is sent with, and accepted only with, hop limit 255. */
    private static final int ND_HOP_LIMIT = 255;
    private static final int ICMPV6 = ETH_HEADER + IPV6_HEADER;
    private static final int ICMPV6_CHECKSUM = 2;
    private static final int ICMPV6_FLAGS = 4;
    private static final int ND_TARGET = 8;
    private static final int ND_OPTIONS = 24;
    private static final int NEIGHBOUR_SOLICITATION = 135;
    private static final int NEIGHBOUR_ADVERTISEMENT = 136;
    private static final int OPTION_SOURCE_LINK_LAYER = 1;
    private static final int OPTION_TARGET_LINK_LAYER = 2;
    private static final int OPTION_UNIT = 8;
    /** RFC 4861 neighbour advertisement flags, the top bits of the word after the checksum. */
    private static final int FLAG_SOLICITED = 0x4000_0000;
    private static final int FLAG_OVERRIDE = 0x2000_0000;
    /** An advertisement with a target link-layer address option: 24 + 8 bytes of ICMPv6. */
    private static final int ADVERTISEMENT = ND_OPTIONS + OPTION_UNIT;
    private static final int ADVERTISEMENT_FRAME = ICMPV6 + ADVERTISEMENT;

    private static final int ETH_P_ARP = AfPacket.ETH_P_ARP;
    private static final int ETH_P_IPV6 = AfPacket.ETH_P_IPV6;
    private static final int RECEIVE_BYTES = 2048;
    private static final int SEND_BYTES = 128;

    private final Syscalls syscalls;
    private final List<Interface> interfaces;
    private final int[] arpSockets;
    private final int[] solicitationSockets;
    private final Arena arena = Arena.ofShared();
    private final long received;
    private final long sent;
    private final MemorySegment from;
    private final MemorySegment fromLength;
    private long arpAnswers;
    private long solicitationAnswers;
    private long ignored;
    private long announcements;
    private long sendFailures;
    private Set<IpAddress> known = Set.of();
    private boolean closed;

    private VipAnnouncer(final Syscalls syscalls, final List<Interface> interfaces)
    {
        this.syscalls = syscalls;
        this.interfaces = new ArrayList<>(interfaces);
        this.arpSockets = new int[interfaces.size()];
        this.solicitationSockets = new int[interfaces.size()];
        Arrays.fill(arpSockets, -1);
        Arrays.fill(solicitationSockets, -1);
        this.received = arena.allocate(RECEIVE_BYTES, 8).address();
        this.sent = arena.allocate(SEND_BYTES, 8).address();
        this.from = arena.allocate(SockaddrLl.LAYOUT);
        this.fromLength = arena.allocate(JAVA_INT);
    }

    /**
     * Opens the sockets on every interface (in the caller's network namespace; they keep it).
     *
     * @param syscalls   the conductor's bindings.
     * @param interfaces where to answer and announce; none twice.
     * @return the announcer; close it to release the sockets.
     * @throws io.jvs.nativebindings.NativeCallException when a socket cannot be made (CAP_NET_RAW and CAP_BPF are
     *                                                   needed), naming the interface; nothing stays open.
     */
    public static VipAnnouncer open(final Syscalls syscalls, final List<Interface> interfaces)
    {
        final long distinct = interfaces.stream().mapToInt(Interface::ifindex).distinct().count();
        if (distinct != interfaces.size())
        {
            throw new IllegalArgumentException("an interface is named twice: " + interfaces);
        }
        final VipAnnouncer announcer = new VipAnnouncer(syscalls, interfaces);
        try (BpfProgram filter = NeighbourSolicitationFilter.load(syscalls); Arena scratch = Arena.ofConfined())
        {
            // Each socket holds its own reference to the attached program, so the program fd closes here.
            final MemorySegment value = scratch.allocate(PACKET_MREQ_SIZE, 8);
            final MemorySegment address = scratch.allocate(SockaddrLl.LAYOUT);
            for (int i = 0; i < interfaces.size(); i++)
            {
                final Interface link = interfaces.get(i);
                announcer.arpSockets[i] = announcer.socket(link, ETH_P_ARP, value, address, -1);
                announcer.solicitationSockets[i] = announcer.socket(link, ETH_P_IPV6, value, address, filter.fd());
            }
            return announcer;
        }
        catch (final RuntimeException ex)
        {
            announcer.close();
            throw ex;
        }
    }

    /**
     * A non-blocking SOCK_RAW socket of {@code etherType} bound to the interface; with a filter, it gets it and
     * all-multicast mode. The filter is attached before the bind, so no unfiltered frame is queued.
     */
    private int socket(final Interface link, final int etherType, final MemorySegment value,
        final MemorySegment address, final int filterFd)
    {
        final String what = "the VIP announcer's " + (filterFd < 0 ? "ARP" : "neighbour solicitation") +
            " socket on " + link.name();
        final int fd = (int)Syscalls.check("socket", syscalls.socket(AfPacket.AF_PACKET,
            Sockets.SOCK_RAW | Sockets.SOCK_NONBLOCK | Sockets.SOCK_CLOEXEC, Sockets.htons(etherType)), what);
        try
        {
            value.set(JAVA_INT, 0, RECEIVE_BUFFER);
            Syscalls.check("setsockopt(SO_RCVBUF)", syscalls.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF,
                value.address(), Integer.BYTES), what);
            if (filterFd >= 0)
            {
                value.set(JAVA_INT, 0, filterFd);
                Syscalls.check("setsockopt(SO_ATTACH_BPF)", syscalls.setsockopt(fd, Sockets.SOL_SOCKET,
                    SO_ATTACH_BPF, value.address(), Integer.BYTES), what);
            }
            address.fill((byte)0);
            address.set(JAVA_SHORT, SockaddrLl.FAMILY_OFFSET, (short)AfPacket.AF_PACKET);
            address.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), SockaddrLl.PROTOCOL_OFFSET, (short)etherType);
            address.set(JAVA_INT, SockaddrLl.IFINDEX_OFFSET, link.ifindex());
            Syscalls.check("bind", syscalls.bind(fd, address.address(), SockaddrLl.SIZE), what);
            if (filterFd >= 0)
            {
                value.fill((byte)0);
                value.set(JAVA_INT, 0, link.ifindex());
                value.set(JAVA_SHORT, Integer.BYTES, (short)PACKET_MR_ALLMULTI);
                Syscalls.check("setsockopt(PACKET_ADD_MEMBERSHIP)", syscalls.setsockopt(fd, AfPacket.SOL_PACKET,
                    PACKET_ADD_MEMBERSHIP, value.address(), PACKET_MREQ_SIZE), what);
            }
            return fd;
        }
        catch (final RuntimeException ex)
        {
            syscalls.close(fd);
            throw ex;
        }
    }

    /**
     * Answers what the sockets hold: each ARP request for a VIP with an ARP reply, each neighbour solicitation for
     * a VIP with a solicited advertisement (RFC 4861 7.2.4); the rest is counted as ignored.
     *
     * @param vips the current VIPs, of both families.
     * @return the answers sent.
     */
    public int poll(final Set<IpAddress> vips)
    {
        int answers = 0;
        for (int i = 0; i < arpSockets.length; i++)
        {
            final Interface link = interfaces.get(i);
            for (int n = 0; n < DRAIN_LIMIT; n++)
            {
                final int length = receive(arpSockets[i]);
                if (length < 0)
                {
                    break;
                }
                answers += isFromTheLink() ? answerArp(i, link, length, vips) : ignore();
            }
            for (int n = 0; n < DRAIN_LIMIT; n++)
            {
                final int length = receive(solicitationSockets[i]);
                if (length < 0)
                {
                    break;
                }
                answers += isFromTheLink() ? answerSolicitation(i, link, length, vips) : ignore();
            }
        }
        return answers;
    }

    /**
     * Answers from an interface's new MAC from now on, and announces the VIPs known so far again, so that the
     * neighbours' entries for them, which hold the old MAC, take the new one (an existing entry is updated by a
     * gratuitous ARP or an override advertisement whatever arp_accept says): for the conductor, when the kernel
     * announces the interface's new address.
     *
     * @param index the interface's position in the list the announcer was opened with.
     * @param mac   its MAC in the low 48 bits.
     */
    public void mac(final int index, final long mac)
    {
        final Interface link = interfaces.get(index);
        interfaces.set(index, new Interface(link.name(), link.ifindex(), mac, link.ipv4(), link.ipv6()));
        announce(known);
    }

    /**
     * Opens the interface's sockets again on the device made again under its name, whose ifindex is another (the
     * old sockets were bound to the removed one, and packet_notifier unbound them at NETDEV_UNREGISTER), and
     * announces the VIPs known so far on it: for the conductor, once the interface's ports are open again.
     *
     * @param index   the interface's position in the list the announcer was opened with.
     * @param ifindex the new device's.
     * @param mac     its MAC in the low 48 bits.
     * @throws io.jvs.nativebindings.NativeCallException when a socket cannot be made: the old ones are kept then.
     */
    public void reopen(final int index, final int ifindex, final long mac)
    {
        final Interface old = interfaces.get(index);
        final Interface link = new Interface(old.name(), ifindex, mac, old.ipv4(), old.ipv6());
        try (BpfProgram filter = NeighbourSolicitationFilter.load(syscalls); Arena scratch = Arena.ofConfined())
        {
            final MemorySegment value = scratch.allocate(PACKET_MREQ_SIZE, 8);
            final MemorySegment address = scratch.allocate(SockaddrLl.LAYOUT);
            final int arp = socket(link, ETH_P_ARP, value, address, -1);
            final int solicitation;
            try
            {
                solicitation = socket(link, ETH_P_IPV6, value, address, filter.fd());
            }
            catch (final RuntimeException ex)
            {
                syscalls.close(arp);
                throw ex;
            }
            syscalls.close(arpSockets[index]);
            syscalls.close(solicitationSockets[index]);
            arpSockets[index] = arp;
            solicitationSockets[index] = solicitation;
            interfaces.set(index, link);
        }
        announce(known);
    }

    /**
     * Announces the VIPs on every interface: for an IPv4 VIP a gratuitous ARP request and reply (sender and target
     * IP the VIP, to the broadcast MAC, as {@code arping -U} and {@code -A} send them), for an IPv6 VIP an
     * unsolicited advertisement (override flag, not solicited, to all-nodes; RFC 4861 7.2.6). Neighbours that
     * already have an entry for the VIP update it; whether one without takes it is its own policy (Linux:
     * {@code arp_accept}, and {@code accept_untracked_na} on a forwarding interface).
     *
     * @param vips the VIPs that appeared.
     */
    public void announce(final Set<IpAddress> vips)
    {
        for (int i = 0; i < arpSockets.length; i++)
        {
            final Interface link = interfaces.get(i);
            for (final IpAddress vip : vips)
            {
                if (isOwnAddress(link, vip))
                {
                    continue;
                }
                if (vip.isV6())
                {
                    advertise(i, link, vip, ALL_NODES_MAC, ALL_NODES_HIGH, ALL_NODES_LOW, FLAG_OVERRIDE);
                }
                else
                {
                    arp(i, link, ArpHeader.OPCODE_REQUEST, vip.v4(), BROADCAST_MAC, 0, vip.v4());
                    arp(i, link, ArpHeader.OPCODE_REPLY, vip.v4(), BROADCAST_MAC, link.mac(), vip.v4());
                }
                announcements++;
            }
        }
    }

    /**
     * {@link #announce}s the VIPs that are in {@code vips} but were not in the set of the previous call (the first
     * call: all of them), and remembers {@code vips}: for the conductor to call after each published snapshot.
     *
     * @return the VIPs announced.
     */
    public int announceAppeared(final Set<IpAddress> vips)
    {
        final Set<IpAddress> appeared = new HashSet<>(vips);
        appeared.removeAll(known);
        known = Set.copyOf(vips);
        if (!appeared.isEmpty())
        {
            announce(appeared);
        }
        return appeared.size();
    }

    /** @return ARP replies sent by {@link #poll}. */
    public long arpAnswers()
    {
        return arpAnswers;
    }

    /** @return neighbour advertisements sent by {@link #poll}. */
    public long solicitationAnswers()
    {
        return solicitationAnswers;
    }

    /** @return frames {@link #poll} read and did not answer (not for a VIP, malformed, not a request). */
    public long ignored()
    {
        return ignored;
    }

    /** @return VIP announcements made on an interface ({@link #announce}: one per VIP and interface). */
    public long announcements()
    {
        return announcements;
    }

    /** @return frames the kernel refused to send (a full socket buffer, the interface down). */
    public long sendFailures()
    {
        return sendFailures;
    }

    /** @return the sockets' descriptors, for the conductor to wait on (readable when a request is queued). */
    public int[] descriptors()
    {
        final int[] fds = new int[arpSockets.length * 2];
        for (int i = 0; i < arpSockets.length; i++)
        {
            fds[2 * i] = arpSockets[i];
            fds[2 * i + 1] = solicitationSockets[i];
        }
        return fds;
    }

    /** @return the frame's length, or -1 when the socket holds none. */
    private int receive(final int fd)
    {
        fromLength.set(JAVA_INT, 0, SockaddrLl.SIZE);
        final long length = syscalls.recvfrom(fd, received, RECEIVE_BYTES, Sockets.MSG_DONTWAIT, from.address(),
            fromLength.address());
        return length < 0 ? -1 : (int)length;
    }

    /**
     * @return whether the frame just received was to this host, a broadcast or a multicast: not one to another
     *         host's MAC, nor one the kernel gave an untagged socket from a VLAN it has no device for
     *         ({@code __netif_receive_skb_core} marks those PACKET_OTHERHOST), nor one sent here.
     */
    private boolean isFromTheLink()
    {
        final int type = from.get(JAVA_BYTE, SockaddrLl.PKTTYPE_OFFSET) & 0xFF;
        return type == AfPacket.PACKET_HOST || type == AfPacket.PACKET_BROADCAST || type == AfPacket.PACKET_MULTICAST;
    }

    private int ignore()
    {
        ignored++;
        return 0;
    }

    private int answerArp(final int index, final Interface link, final int length, final Set<IpAddress> vips)
    {
        final long arp = received + ETH_HEADER;
        if (length < ARP_FRAME || Frames.u16(received + ETH_TYPE) != ETH_P_ARP || !ArpHeader.isEthernetIpv4(arp) ||
            ArpHeader.opcode(arp) != ArpHeader.OPCODE_REQUEST)
        {
            ignored++;
            return 0;
        }
        final int target = ArpHeader.targetIp(arp);
        final int sender = ArpHeader.senderIp(arp);
        final long requester = ArpHeader.senderMac(arp);
        final IpAddress vip = IpAddress.ofV4(target);
        // A gratuitous request (sender = target) announces someone's address, it asks nothing: as arp_process,
        // whose route lookup of a local source fails. A probe (sender 0.0.0.0, RFC 5227) is answered to its MAC.
        if (sender == target || !vips.contains(vip) || isOwnAddress(link, vip) || (requester & MULTICAST_BIT) != 0)
        {
            ignored++;
            return 0;
        }
        if (!arp(index, link, ArpHeader.OPCODE_REPLY, target, requester, requester, sender))
        {
            return 0;
        }
        arpAnswers++;
        return 1;
    }

    /**
     * Validates a solicitation as RFC 4861 7.1.1 asks (hop limit 255, code 0, at least 24 bytes, a right checksum,
     * a unicast target; from the unspecified address only to a solicited-node group and without a source
     * link-layer option) and answers it when the target is a VIP.
     */
    private int answerSolicitation(final int index, final Interface link, final int length, final Set<IpAddress> vips)
    {
        final long ip = received + ETH_HEADER;
        final long icmp = received + ICMPV6;
        if (length < NeighbourSolicitationFilter.MINIMUM_FRAME || Frames.u16(received + ETH_TYPE) != ETH_P_IPV6 ||
            Frames.u8(ip) >>> 4 != 6 || Frames.u8(ip + IPV6_NEXT_HEADER) != IPPROTO_ICMPV6 ||
            Frames.u8(ip + IPV6_HOP_LIMIT) != ND_HOP_LIMIT || Frames.u8(icmp) != NEIGHBOUR_SOLICITATION ||
            Frames.u8(icmp + 1) != 0)
        {
            ignored++;
            return 0;
        }
        final int icmpLength = Frames.u16(ip + IPV6_PAYLOAD_LENGTH);
        if (icmpLength < ND_OPTIONS || ICMPV6 + icmpLength > length ||
            !Checksums.isTransportChecksumValidV6(ip + IPV6_SOURCE, IPPROTO_ICMPV6, icmp, icmpLength))
        {
            ignored++;
            return 0;
        }
        final IpAddress target = IpAddress.ofV6(Frames.i64(icmp + ND_TARGET), Frames.i64(icmp + ND_TARGET + 8));
        final long sourceHigh = Frames.i64(ip + IPV6_SOURCE);
        final long sourceLow = Frames.i64(ip + IPV6_SOURCE + 8);
        final long sourceMac = sourceLinkLayer(icmp, icmpLength);
        if (sourceMac == -2 || !vips.contains(target) || isOwnAddress(link, target) ||
            (target.high() >>> 56) == 0xFF)
        {
            ignored++;
            return 0;
        }
        final boolean unspecified = sourceHigh == 0 && sourceLow == 0;
        if (unspecified)
        {
            final long destinationHigh = Frames.i64(ip + IPV6_DESTINATION);
            final long destinationLow = Frames.i64(ip + IPV6_DESTINATION + 8);
            if (destinationHigh != SOLICITED_NODE_HIGH || (destinationLow & ~0xFF_FFFFL) != SOLICITED_NODE_LOW ||
                sourceMac >= 0)
            {
                ignored++;
                return 0;
            }
            // Duplicate address detection: the advertisement goes to all nodes, not solicited (RFC 4861 7.2.4).
            if (!advertise(index, link, target, ALL_NODES_MAC, ALL_NODES_HIGH, ALL_NODES_LOW, FLAG_OVERRIDE))
            {
                return 0;
            }
        }
        else
        {
            // To the solicitation's source, at the link-layer address it gave, else the one it came from (the
            // kernel would resolve it; the frame's own source is that answer).
            final long toMac = sourceMac >= 0 ? sourceMac : mac(received + ETH_SOURCE);
            if ((toMac & MULTICAST_BIT) != 0)
            {
                ignored++;
                return 0;
            }
            if (!advertise(index, link, target, toMac, sourceHigh, sourceLow, FLAG_SOLICITED | FLAG_OVERRIDE))
            {
                return 0;
            }
        }
        solicitationAnswers++;
        return 1;
    }

    /**
     * @return the source link-layer address option's MAC, -1 when there is none, -2 when the options are malformed
     *         (a zero length, or one running past the message: RFC 4861 7.1.1 says to drop the message).
     */
    private static long sourceLinkLayer(final long icmp, final int icmpLength)
    {
        long mac = -1;
        int offset = ND_OPTIONS;
        while (offset < icmpLength)
        {
            if (icmpLength - offset < 2)
            {
                return -2;
            }
            final int units = Frames.u8(icmp + offset + 1);
            if (units == 0 || offset + units * OPTION_UNIT > icmpLength)
            {
                return -2;
            }
            if (Frames.u8(icmp + offset) == OPTION_SOURCE_LINK_LAYER && units == 1)
            {
                mac = mac(icmp + offset + 2);
            }
            offset += units * OPTION_UNIT;
        }
        return mac;
    }

    private static boolean isOwnAddress(final Interface link, final IpAddress address)
    {
        return address.equals(link.ipv4()) || address.equals(link.ipv6());
    }

    /** Builds and sends one ARP frame: Ethernet to {@code toMac}, the interface's MAC the sender's. */
    private boolean arp(final int index, final Interface link, final int opcode, final int senderIp,
        final long toMac, final long targetMac, final int targetIp)
    {
        putMac(sent + ETH_DESTINATION, toMac);
        putMac(sent + ETH_SOURCE, link.mac());
        Frames.putU16(sent + ETH_TYPE, ETH_P_ARP);
        final long arp = sent + ETH_HEADER;
        Frames.putU16(arp, 1);
        Frames.putU16(arp + 2, AfPacket.ETH_P_IP);
        Frames.putU8(arp + 4, 6);
        Frames.putU8(arp + 5, 4);
        Frames.putU16(arp + ArpHeader.OPCODE_OFFSET, opcode);
        putMac(arp + ArpHeader.SENDER_MAC_OFFSET, link.mac());
        Frames.putI32(arp + ArpHeader.SENDER_IP_OFFSET, senderIp);
        putMac(arp + ArpHeader.TARGET_MAC_OFFSET, targetMac);
        Frames.putI32(arp + ArpHeader.TARGET_IP_OFFSET, targetIp);
        return send(arpSockets[index], ARP_FRAME);
    }

    /**
     * Builds and sends one neighbour advertisement for {@code target} from it, with a target link-layer address
     * option carrying the interface's MAC, hop limit 255 and its ICMPv6 checksum.
     */
    private boolean advertise(final int index, final Interface link, final IpAddress target, final long toMac,
        final long toHigh, final long toLow, final int flags)
    {
        putMac(sent + ETH_DESTINATION, toMac);
        putMac(sent + ETH_SOURCE, link.mac());
        Frames.putU16(sent + ETH_TYPE, ETH_P_IPV6);
        final long ip = sent + ETH_HEADER;
        Frames.putI32(ip, 6 << 28);
        Frames.putU16(ip + IPV6_PAYLOAD_LENGTH, ADVERTISEMENT);
        Frames.putU8(ip + IPV6_NEXT_HEADER, IPPROTO_ICMPV6);
        Frames.putU8(ip + IPV6_HOP_LIMIT, ND_HOP_LIMIT);
        Frames.putI64(ip + IPV6_SOURCE, target.high());
        Frames.putI64(ip + IPV6_SOURCE + 8, target.low());
        Frames.putI64(ip + IPV6_DESTINATION, toHigh);
        Frames.putI64(ip + IPV6_DESTINATION + 8, toLow);
        final long icmp = sent + ICMPV6;
        Frames.putU8(icmp, NEIGHBOUR_ADVERTISEMENT);
        Frames.putU8(icmp + 1, 0);
        Frames.putU16(icmp + ICMPV6_CHECKSUM, 0);
        Frames.putI32(icmp + ICMPV6_FLAGS, flags);
        Frames.putI64(icmp + ND_TARGET, target.high());
        Frames.putI64(icmp + ND_TARGET + 8, target.low());
        Frames.putU8(icmp + ND_OPTIONS, OPTION_TARGET_LINK_LAYER);
        Frames.putU8(icmp + ND_OPTIONS + 1, 1);
        putMac(icmp + ND_OPTIONS + 2, link.mac());
        Frames.putU16(icmp + ICMPV6_CHECKSUM,
            Checksums.transportChecksumV6(ip + IPV6_SOURCE, IPPROTO_ICMPV6, icmp, ADVERTISEMENT));
        return send(solicitationSockets[index], ADVERTISEMENT_FRAME);
    }

    private boolean send(final int fd, final int length)
    {
        // Bound sockets send on their interface; the driver pads a short frame to the Ethernet minimum.
        final long result = syscalls.sendto(fd, sent, length, Sockets.MSG_DONTWAIT, 0, 0);
        if (result != length)
        {
            sendFailures++;
            return false;
        }
        return true;
    }

    private static long mac(final long address)
    {
        return (long)Frames.u16(address) << 32 | Frames.i32(address + 2) & 0xFFFF_FFFFL;
    }

    private static void putMac(final long address, final long mac)
    {
        Frames.putU16(address, (int)(mac >>> 32) & 0xFFFF);
        Frames.putI32(address + 2, (int)mac);
    }

    /** Closes the sockets (idempotent). */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (int i = 0; i < arpSockets.length; i++)
        {
            if (arpSockets[i] >= 0)
            {
                syscalls.close(arpSockets[i]);
            }
            if (solicitationSockets[i] >= 0)
            {
                syscalls.close(solicitationSockets[i]);
            }
        }
        arena.close();
    }
}
