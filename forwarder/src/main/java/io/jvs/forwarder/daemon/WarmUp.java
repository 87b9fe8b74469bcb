package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.L4Headers;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.pipeline.MarkRule;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import io.jvs.forwarder.port.memory.FrameSource;
import io.jvs.forwarder.synth.HeaderWriter;
import org.agrona.UnsafeApi;

import java.util.ArrayList;
import java.util.List;

/**
 * Frames that exercise the daemon's data path before the first real packet, so that the JIT has compiled it:
 * for each service, IPv4 or IPv6, TCP connections from a spread of clients (SYN, ACKs, FIN) and UDP datagrams, plus
 * the NAT replies of its servers, cycled, most of them on connections already established. A firewall-mark
 * service's frames are those the first {@code mark} statement giving its mark matches on the first interface
 * (where the scratch worker receives): to the statement's destination (its first address after the network's
 * for a wider prefix), from clients in its source prefix, of its protocol and to its port, so the scratch
 * pipeline's mark rules classify them as the live one's will (an earlier statement that matches them too gives
 * them its mark instead, as it would live). A mark service no statement can mark so (none gives its mark, or
 * only on another interface, for ICMP, or from a source prefix too narrow for the clients) is not warmed, and
 * {@link #unwarmed()} says why. It feeds a memory port of a scratch worker whose pipeline and services are
 * copies made from the same configuration, so nothing of the real state is touched.
 */
final class WarmUp implements FrameSource
{
    /** How many bits the clients' numbers take. */
    private static final int CLIENT_BITS = 12;
    private static final int CLIENTS = 1 << CLIENT_BITS;
    /** Passes over the clients per connection: SYN, ACK, six ACKs each with a server's reply, FIN, a reply. */
    static final int PHASES = 16;
    private static final int FIN_PHASE = PHASES - 2;
    private static final long CLIENT_MAC = 0x02_00_00_00_77_01L;

    private final long portMac;
    private final List<Target> targets = new ArrayList<>();
    private final List<String> unwarmed = new ArrayList<>();
    /** The IPv4 address the ARP requests, pings and malformed frames are for: the first IPv4 target's. */
    private final int hostV4;
    private long step;
    private long given;
    private long delivered;

    WarmUp(final ServiceTable table, final long portMac)
    {
        this(table, List.of(), portMac);
    }

    /**
     * @param marks the configuration's {@code mark} statements, which give the firewall-mark services their frames.
     */
    WarmUp(final ServiceTable table, final List<MarkRule> marks, final long portMac)
    {
        this.portMac = portMac;
        for (final VirtualService service : table.services())
        {
            if (!service.key().isFirewallMark())
            {
                final IpAddress vip = service.key().address();
                targets.add(new Target(vip, service.key().port() == 0 ? 80 : service.key().port(),
                    service.key().protocol().number(), service.servers(), vip.isV6() ? CLIENTS_V6 : CLIENTS_V4));
                continue;
            }
            final Target target = markTarget(service, marks);
            if (target != null)
            {
                targets.add(target);
            }
        }
        int v4 = TEST_NET_2;
        for (final Target target : targets)
        {
            if (!target.destination.isV6())
            {
                v4 = target.destination.v4();
                break;
            }
        }
        hostV4 = v4;
    }

    /**
     * @return the frames of the first mark statement that gives the service its mark on the first interface, for
     *         its family, TCP or UDP, and with room in its source prefix for the clients; null, with the reason
     *         in {@link #unwarmed}, without one.
     */
    private Target markTarget(final VirtualService service, final List<MarkRule> marks)
    {
        final String name = service.key().toRuleString();
        final boolean v6 = service.key().v6();
        final int hostBits = v6 ? 128 : 32;
        boolean given = false;
        for (final MarkRule rule : marks)
        {
            if (rule.mark() != service.key().firewallMark())
            {
                continue;
            }
            given = true;
            final IpPrefix source = rule.source();
            final IpPrefix destination = rule.destination();
            if (source != null && source.isV6() != v6 || destination != null && destination.isV6() != v6 ||
                rule.inPort() != MarkRule.ANY_PORT && rule.inPort() != 0 ||
                rule.protocol() != 0 && rule.protocol() != Ipv4Header.PROTOCOL_TCP &&
                    rule.protocol() != Ipv4Header.PROTOCOL_UDP ||
                source != null && hostBits - source.length() < CLIENT_BITS)
            {
                continue;
            }
            final IpAddress to = destination == null ? (v6 ? TEST_NET_V6 : IpAddress.ofV4(TEST_NET_2)) :
                destination.length() == hostBits ? destination.network() : v6 ?
                IpAddress.ofV6(destination.network().high(), destination.network().low() + 1) :
                IpAddress.ofV4(destination.network().v4() + 1);
            final IpAddress clients = source != null ? source.network() : v6 ? CLIENTS_V6 : CLIENTS_V4;
            return new Target(to, rule.destinationPort() == 0 ? 80 : rule.destinationPort(),
                rule.protocol() == 0 ? Ipv4Header.PROTOCOL_TCP : rule.protocol(), service.servers(), clients);
        }
        unwarmed.add(name + ": " + (given ? "no mark statement giving its mark matches TCP or UDP of its family " +
            "on the first interface from a source prefix with room for " + (1 << CLIENT_BITS) + " clients" :
            "no mark statement gives its mark") + ", so its path was not warmed");
        return null;
    }

    /** @return whether there is anything to warm with (a service whose frames the warm-up can make). */
    boolean hasTraffic()
    {
        return !targets.isEmpty();
    }

    /** @return for each service the warm-up sends nothing for (a firewall-mark one), which and why. */
    List<String> unwarmed()
    {
        return unwarmed;
    }

    @Override
    public int next(final long address, final int capacity)
    {
        if (targets.isEmpty() || capacity < 128)
        {
            return 0;
        }
        ++given;
        if (given % MALFORMED_EVERY == 0)
        {
            delivered++;
            return malformed(address);
        }
        if (given % HOST_EVERY == 0)
        {
            delivered++;
            final long turn = given / HOST_EVERY % 3;
            return turn == 0 ? arpRequest(address) : turn == 1 ? echoRequest(address) : neighbourSolicitation(address);
        }
        final long n = step++;
        final Target target = targets.get((int)(n % targets.size()));
        final long round = n / targets.size();
        final int clientIndex = (int)(round % CLIENTS);
        final IpAddress client = target.client(clientIndex);
        // One pass over the clients per phase: a connection (client and port) gets its SYN and the ACK that
        // establishes it, then six of its own ACKs each followed by one of its server's, then its FIN and the
        // server's last ACK, in sixteen passes running; the next sixteen open new connections from the next port.
        // So most frames follow an established connection, as on a wire: the JIT lays out and inlines the burst
        // loop from the counts this traffic leaves, and never recompiles it for the traffic that comes later.
        final long pass = round / CLIENTS;
        final int phase = (int)(pass % PHASES);
        final long connection = pass / PHASES * CLIENTS + clientIndex;
        final int clientPort = 1024 + (int)(pass / PHASES % 60000);
        final int vport = target.port;
        final int protocol = target.protocol;
        final RealServer[] servers = target.servers;
        // Over IPv6 a datagram always has its checksum (RFC 8200 8.1).
        final boolean udpChecksum = (clientIndex & 1) == 0 || client.isV6();
        delivered++;
        if (isServerPhase(phase) && servers.length > 0)
        {
            // The server rr gives the service's connection-th connection (other schedulers choose otherwise: the
            // replies that then find no connection are passed, which warms that path). A UDP server answers too.
            final RealServer server = servers[(int)(connection % servers.length)];
            final int serverPort = server.port() == 0 ? vport : server.port();
            return frame(address, server.address(), serverPort, client, clientPort, protocol, L4Headers.TCP_ACK,
                udpChecksum);
        }
        final int flags = phase == 0 ? L4Headers.TCP_SYN : phase == FIN_PHASE ? L4Headers.TCP_FIN | L4Headers.TCP_ACK :
            L4Headers.TCP_ACK;
        return frame(address, client, clientPort, target.destination, vport, protocol, flags, udpChecksum);
    }

    /**
     * A datagram to the first IPv4 service (or a documentation address) with version 6 under the IPv4 type: dropped, its buffer given back instead of
     * sent, as some of live traffic is. Without any, the ports' and the pipeline's code for such frames would be
     * compiled as traps.
     */
    private int malformed(final long address)
    {
        final int length = frame(address, IpAddress.ofV4(0x6440_0000), 1024, IpAddress.ofV4(hostV4), 80,
            Ipv4Header.PROTOCOL_UDP, 0, true);
        UnsafeApi.putByte(address + EthernetHeader.LENGTH, (byte)0x65);
        return length;
    }

    /**
     * A broadcast ARP request for the first service's address, as a router or a server sends for it: passed to the
     * host. Without any, the parser's code for frames that are not IP would be compiled as a trap in the middle of
     * the pipeline, and the first live ARP request would send the pipeline back to the interpreter.
     */
    private int arpRequest(final long address)
    {
        final int l3 = HeaderWriter.ethernet(address, BROADCAST_MAC, CLIENT_MAC, -1, EthernetHeader.TYPE_ARP);
        final long arp = address + l3;
        Frames.putU16(arp, 1);
        Frames.putU16(arp + 2, EthernetHeader.TYPE_IPV4);
        Frames.putU8(arp + 4, 6);
        Frames.putU8(arp + 5, 4);
        Frames.putU16(arp + 6, 1);
        putMac(arp + 8, CLIENT_MAC);
        Frames.putI32(arp + 14, 0x6440_0001);
        putMac(arp + 18, 0);
        Frames.putI32(arp + 24, hostV4);
        return HeaderWriter.pad(address, l3 + 28);
    }

    /** An ICMP echo request to the first service's address, as a ping of the VIP: passed to the host, which answers. */
    private int echoRequest(final long address)
    {
        final int l3 = HeaderWriter.ethernet(address, portMac, CLIENT_MAC, -1, EthernetHeader.TYPE_IPV4);
        final long ip = address + l3;
        final long icmp = ip + 20;
        final int length = 8 + 32;
        UnsafeApi.setMemory(icmp, length, (byte)0);
        Frames.putU8(icmp, 8);
        Frames.putU16(icmp + 4, (int)given & 0xFFFF);
        Frames.putU16(icmp + 2, Checksums.checksum(icmp, length));
        HeaderWriter.ipv4(ip, 20 + length, 1, 0x4000, HeaderWriter.TTL, ICMP, 0x6440_0001, hostV4);
        return HeaderWriter.pad(address, l3 + 20 + length);
    }

    /**
     * An IPv6 neighbour solicitation from a link-local address to a solicited-node group, as any IPv6 host on the link
     * sends, whatever the services' families: passed to the host. Without any IPv6 frame, the parser's IPv6 branch
     * would be compiled as a trap in the middle of the pipeline.
     */
    private int neighbourSolicitation(final long address)
    {
        final long targetLow = 0x0000_0000_0000_0001L;
        final long group = 0x3333_FF00_0001L;
        final int l3 = HeaderWriter.ethernet(address, group, CLIENT_MAC, -1, EthernetHeader.TYPE_IPV6);
        final long ip = address + l3;
        final long icmp = ip + 40;
        final int length = 32;
        UnsafeApi.setMemory(icmp, length, (byte)0);
        Frames.putU8(icmp, NEIGHBOUR_SOLICITATION);
        Frames.putI64(icmp + 8, 0xFE80_0000_0000_0000L);
        Frames.putI64(icmp + 16, targetLow);
        Frames.putU8(icmp + 24, 1);
        Frames.putU8(icmp + 25, 1);
        putMac(icmp + 26, CLIENT_MAC);
        HeaderWriter.ipv6(ip, length, ICMPV6, 0, 0xFE80_0000_0000_0000L, 0x0000_0000_0000_0002L,
            0xFF02_0000_0000_0000L, 0x0000_0001_FF00_0001L);
        Frames.putU8(ip + 7, 255);
        HeaderWriter.transportChecksum(ip, true, ICMPV6, icmp, length);
        return HeaderWriter.pad(address, l3 + 40 + length);
    }

    private static void putMac(final long at, final long mac)
    {
        for (int i = 0; i < 6; i++)
        {
            Frames.putU8(at + i, (int)(mac >>> (40 - 8 * i)) & 0xFF);
        }
    }

    /**
     * One frame in this many is for the host (an ARP request, a ping of a VIP or an IPv6 neighbour solicitation, by
     * turns), besides the connections'.
     */
    static final int HOST_EVERY = 97;
    private static final int ICMPV6 = 58;
    private static final int NEIGHBOUR_SOLICITATION = 135;
    private static final long BROADCAST_MAC = 0xFFFF_FFFF_FFFFL;
    private static final int ICMP = 1;

    /** One frame in this many is malformed, besides the connections' frames. */
    static final int MALFORMED_EVERY = 211;

    /** The server's ACKs: after each of the client's six data ACKs (phases 2, 4, …, 12) and after its FIN. */
    private static boolean isServerPhase(final int phase)
    {
        return phase > 1 && (phase & 1) == 1;
    }

    /**
     * @param udpChecksum whether a datagram has its checksum: the datagrams of every other client and of its server
     *                    have none (0, RFC 768), as many senders do, so that the JIT compiles the NAT rewrite for both.
     */
    private int frame(final long frame, final IpAddress source, final int sourcePort, final IpAddress destination,
        final int destinationPort, final int protocol, final int tcpFlags, final boolean udpChecksum)
    {
        final boolean v6 = source.isV6();
        final int header = v6 ? 40 : 20;
        final int l3 = HeaderWriter.ethernet(frame, portMac, CLIENT_MAC, -1,
            v6 ? EthernetHeader.TYPE_IPV6 : EthernetHeader.TYPE_IPV4);
        final long ip = frame + l3;
        final long l4 = ip + header;
        final int segment;
        if (protocol == Ipv4Header.PROTOCOL_TCP)
        {
            segment = HeaderWriter.tcp(l4, sourcePort, destinationPort, 1, 1, tcpFlags, v6 ? 1440 : 1460);
        }
        else
        {
            segment = L4Headers.UDP_LENGTH + 16;
            HeaderWriter.udp(l4, sourcePort, destinationPort, segment);
        }
        if (v6)
        {
            HeaderWriter.ipv6(ip, segment, protocol, 0, source.high(), source.low(), destination.high(),
                destination.low());
        }
        else
        {
            HeaderWriter.ipv4(ip, 20 + segment, 1, 0x4000, HeaderWriter.TTL, protocol, source.v4(), destination.v4());
        }
        if (protocol == Ipv4Header.PROTOCOL_TCP || udpChecksum)
        {
            HeaderWriter.transportChecksum(ip, v6, protocol, l4, segment);
        }
        return HeaderWriter.pad(frame, l3 + header + segment);
    }

    /**
     * What the warm-up sends for one service: to {@code destination}'s {@code port}, from {@link #CLIENTS} clients
     * numbered up from {@code clients}, and the replies of its servers.
     */
    private record Target(IpAddress destination, int port, int protocol, RealServer[] servers, IpAddress clients)
    {
        IpAddress client(final int index)
        {
            return clients.isV6() ? IpAddress.ofV6(clients.high(), clients.low() | index) :
                IpAddress.ofV4(clients.v4() | index);
        }
    }

    /** The IPv4 clients, 100.64.0.0/20 (shared address space, RFC 6598). */
    static final IpAddress CLIENTS_V4 = IpAddress.ofV4(0x6440_0000);
    /** The IPv6 clients, fd00:6440::/116 (unique local). */
    static final IpAddress CLIENTS_V6 = IpAddress.parse("fd00:6440::");
    /** 198.51.100.1 (TEST-NET-2): the destination of a mark statement without one, and the host frames' without IPv4. */
    private static final int TEST_NET_2 = 0xC633_6401;
    private static final IpAddress TEST_NET_V6 = IpAddress.parse("2001:db8:6440::1");

    long delivered()
    {
        return delivered;
    }

    /** Frames per warm-up: enough for C2 to compile the burst loop and the pipeline's hot methods. */
    static final int FRAMES = 400_000;

    /** The most frames the scratch port receives per poll. */
    static final int BURST = Math.min(64, FrameBurst.MAX_FRAMES);

    /** The simulated rings' entries (AF_XDP rings and AF_PACKET transmit slots). */
    static final int RING = 1024;

    /** One round in this many receives nothing (the worker's idle work). */
    static final int IDLE_EVERY = 16;

    /** Every this many rounds the simulated kernel stops sending, for {@link #STALL_ROUNDS}: TX rings fill. */
    static final int STALL_EVERY = 2048;
    static final int STALL_ROUNDS = 192;

    /** Every this many rounds the latency histogram is emptied. */
    static final int RESET_EVERY = 512;

    /**
     * Every this many rounds each scratch worker is asked for a copy of its latency histogram (a status asks that),
     * and half-way between, for a page of its connections (a listing), alternately IPv4's and IPv6's.
     */
    static final int QUERY_EVERY = 256;

    /**
     * @return how many rounds the simulated AF_PACKET block timer lets pass before it retires a block, at round
     *         {@code round}: 1, 4, 16 or 64, by turns of 256 rounds, so blocks hold from one burst to most of a block.
     */
    static int blockTimerPeriod(final long round)
    {
        return 1 << (2 * (int)(round / 256 % 4));
    }
}
