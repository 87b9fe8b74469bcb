package io.jvs.nativebindings.bpf;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;

import io.jvs.nativebindings.Syscalls;

/**
 * The address maps of {@link XdpPrograms#redirectJvsTraffic}: which destinations are VIPs, which are the
 * box's own addresses, and which sources are real servers (NAT return traffic), one HASH map per family,
 * keyed by the address in network byte order; the prefixes wider than a host whose destinations or sources are
 * jvs's as well ({@code mark} statements' networks), one LPM trie per family and side, which the programs consult
 * only when the hash maps leave a frame undecided; and its {@link XdpPrograms#UNPLACED} counter. Adding or
 * removing an address takes effect on the next packet, with the program attached: the maps are shared between
 * this process and the kernel. The AF_PACKET port's programs read the same maps
 * ({@link TcPrograms#stealJvsTraffic}, and the VIPs {@link FanoutPrograms#clientDispatch}), so one filter serves
 * every program of a box.
 */
public final class XdpVipFilter implements AutoCloseable
{
    private static final int IPV4_BYTES = 4;
    private static final int IPV6_BYTES = 16;
    /**
     * A map value. The programs read one byte of it, {@link #ECHO_IS_JVS} of a VIP's (or a destination prefix's):
     * whether echo requests to the address are jvs's to answer; the rest leaves room for a VIP index later.
     */
    private static final byte[] PRESENT = {1, 0, 0, 0};
    /** A VIP's value when jvs answers its echo requests ({@code vip-arp on}: the box does not hold the VIP). */
    private static final byte[] PRESENT_ECHO_IS_JVS = {1, 1, 0, 0};
    /** The offset in a VIP's value of the byte that gives its echo requests to jvs rather than the kernel. */
    static final int ECHO_IS_JVS = 1;

    private final BpfMap vipsV4;
    private final BpfMap vipsV6;
    private final BpfMap realServersV4;
    private final BpfMap realServersV6;
    private final BpfMap localsV4;
    private final BpfMap localsV6;
    private final BpfMap destinationPrefixesV4;
    private final BpfMap destinationPrefixesV6;
    private final BpfMap sourcePrefixesV4;
    private final BpfMap sourcePrefixesV6;
    private final BpfMap unplaced;
    private volatile XdpFlowTable flows;

    private XdpVipFilter(final BpfMap[] maps)
    {
        this(maps[0], maps[1], maps[2], maps[3], maps[4], maps[5], maps[6], maps[7], maps[8], maps[9], maps[10]);
    }

    private XdpVipFilter(final BpfMap vipsV4, final BpfMap vipsV6, final BpfMap realServersV4,
        final BpfMap realServersV6, final BpfMap localsV4, final BpfMap localsV6, final BpfMap destinationPrefixesV4,
        final BpfMap destinationPrefixesV6, final BpfMap sourcePrefixesV4, final BpfMap sourcePrefixesV6,
        final BpfMap unplaced)
    {
        this.unplaced = unplaced;
        this.destinationPrefixesV4 = destinationPrefixesV4;
        this.destinationPrefixesV6 = destinationPrefixesV6;
        this.sourcePrefixesV4 = sourcePrefixesV4;
        this.sourcePrefixesV6 = sourcePrefixesV6;
        this.localsV4 = localsV4;
        this.localsV6 = localsV6;
        this.vipsV4 = vipsV4;
        this.vipsV6 = vipsV6;
        this.realServersV4 = realServersV4;
        this.realServersV6 = realServersV6;
    }

    /**
     * Creates the six address maps and the four prefix tries, empty, and the counter, zero.
     *
     * @param maxAddresses how many addresses (or prefixes) each map holds (per family, VIPs, local addresses, real
     *                     servers and the two sides' prefixes apart).
     */
    public static XdpVipFilter create(final Syscalls syscalls, final int maxAddresses)
    {
        final BpfMap[] maps = new BpfMap[11];
        try
        {
            maps[0] = BpfMap.createHash(syscalls, "jvs_vips_v4", IPV4_BYTES, PRESENT.length, maxAddresses);
            maps[1] = BpfMap.createHash(syscalls, "jvs_vips_v6", IPV6_BYTES, PRESENT.length, maxAddresses);
            maps[2] = BpfMap.createHash(syscalls, "jvs_reals_v4", IPV4_BYTES, PRESENT.length, maxAddresses);
            maps[3] = BpfMap.createHash(syscalls, "jvs_reals_v6", IPV6_BYTES, PRESENT.length, maxAddresses);
            maps[4] = BpfMap.createHash(syscalls, "jvs_locals_v4", IPV4_BYTES, PRESENT.length, maxAddresses);
            maps[5] = BpfMap.createHash(syscalls, "jvs_locals_v6", IPV6_BYTES, PRESENT.length, maxAddresses);
            maps[6] = BpfMap.createLpmTrie(syscalls, "jvs_dst_nets_v4", IPV4_BYTES, PRESENT.length, maxAddresses);
            maps[7] = BpfMap.createLpmTrie(syscalls, "jvs_dst_nets_v6", IPV6_BYTES, PRESENT.length, maxAddresses);
            maps[8] = BpfMap.createLpmTrie(syscalls, "jvs_src_nets_v4", IPV4_BYTES, PRESENT.length, maxAddresses);
            maps[9] = BpfMap.createLpmTrie(syscalls, "jvs_src_nets_v6", IPV6_BYTES, PRESENT.length, maxAddresses);
            maps[10] = BpfMap.createArray(syscalls, "jvs_unplaced", Long.BYTES, 1);
            return new XdpVipFilter(maps);
        }
        catch (final RuntimeException ex)
        {
            closeAll(maps);
            throw ex;
        }
    }

    /**
     * Loads {@link XdpPrograms#redirectJvsTraffic} over these maps and {@code xsks}, passing packets for a
     * queue without a socket to the kernel.
     */
    public BpfProgram loadProgram(final Syscalls syscalls, final String name, final BpfMap xsks)
    {
        return loadProgram(syscalls, name, xsks, XdpAction.PASS);
    }

    /**
     * @param whenNoSocket the action when the receive queue has no socket in {@code xsks}.
     */
    public BpfProgram loadProgram(
        final Syscalls syscalls, final String name, final BpfMap xsks, final int whenNoSocket)
    {
        final XdpFlowTable flows = this.flows;
        if (flows == null)
        {
            return BpfProgram.loadXdp(syscalls, name, XdpPrograms.redirectJvsTraffic(whenNoSocket).link(mapFds(xsks)));
        }
        final Map<String, Integer> fds = new HashMap<>(mapFds(xsks));
        fds.putAll(flows.mapFds());
        return BpfProgram.loadXdp(syscalls, name,
            XdpPrograms.forwardFlowsThenRedirectJvsTraffic(whenNoSocket).link(fds));
    }

    /**
     * Programs loaded from now on forward the flows of {@code flows} themselves before they decide as
     * {@link XdpPrograms#redirectJvsTraffic} does ({@link XdpPrograms#forwardFlowsThenRedirectJvsTraffic}); set
     * before the first is loaded. The table stays its caller's to close.
     */
    public void forwardFlows(final XdpFlowTable flows)
    {
        this.flows = flows;
    }

    /**
     * @return the fd of every map the XDP program names, {@code xsks} included.
     */
    public Map<String, Integer> mapFds(final BpfMap xsks)
    {
        final Map<String, Integer> fds = new HashMap<>(mapFds());
        fds.put(XdpPrograms.XSKS, xsks.fd());
        return Map.copyOf(fds);
    }

    /**
     * @return the fd of each of this filter's maps by the name the programs give it (all but the XSKMAP).
     */
    public Map<String, Integer> mapFds()
    {
        return Map.ofEntries(Map.entry(XdpPrograms.VIPS_V4, vipsV4.fd()), Map.entry(XdpPrograms.VIPS_V6, vipsV6.fd()),
            Map.entry(XdpPrograms.REAL_SERVERS_V4, realServersV4.fd()),
            Map.entry(XdpPrograms.REAL_SERVERS_V6, realServersV6.fd()),
            Map.entry(XdpPrograms.LOCALS_V4, localsV4.fd()), Map.entry(XdpPrograms.LOCALS_V6, localsV6.fd()),
            Map.entry(XdpPrograms.DESTINATION_PREFIXES_V4, destinationPrefixesV4.fd()),
            Map.entry(XdpPrograms.DESTINATION_PREFIXES_V6, destinationPrefixesV6.fd()),
            Map.entry(XdpPrograms.SOURCE_PREFIXES_V4, sourcePrefixesV4.fd()),
            Map.entry(XdpPrograms.SOURCE_PREFIXES_V6, sourcePrefixesV6.fd()),
            Map.entry(XdpPrograms.UNPLACED, unplaced.fd()));
    }

    /**
     * @return how many frames the XDP program would have redirected to a receive queue that had no socket, and
     *         handed to the kernel instead, since the filter was created (every program loaded over it counts
     *         here). A read of the map from the control path.
     */
    public long unplacedFrames()
    {
        final byte[] value = unplaced.lookup(0).orElseThrow(() -> new IllegalStateException(
            "the unplaced-frames array has no entry 0"));
        return ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** Packets to {@code vip} go to jvs from now on, but for echo requests, which the kernel answers. */
    public void addVip(final InetAddress vip)
    {
        addVip(vip, false);
    }

    /**
     * Packets to {@code vip} go to jvs from now on.
     *
     * @param echoIsJvs whether echo requests to it go to jvs too, which answers them: the box does not hold the
     *                  VIP ({@code vip-arp on}), so its kernel would not; else they go to the kernel, which holds
     *                  the VIP on {@code lo} and answers them itself.
     */
    public void addVip(final InetAddress vip, final boolean echoIsJvs)
    {
        mapFor(vip, vipsV4, vipsV6).put(vip.getAddress(), echoIsJvs ? PRESENT_ECHO_IS_JVS : PRESENT);
    }

    /**
     * @return false when {@code vip} was not a VIP.
     */
    public boolean removeVip(final InetAddress vip)
    {
        return mapFor(vip, vipsV4, vipsV6).delete(vip.getAddress());
    }

    public boolean isVip(final InetAddress address)
    {
        return mapFor(address, vipsV4, vipsV6).lookup(address.getAddress()).isPresent();
    }

    /** Packets from {@code realServer} (NAT replies) go to jvs from now on. */
    public void addRealServer(final InetAddress realServer)
    {
        mapFor(realServer, realServersV4, realServersV6).put(realServer.getAddress(), PRESENT);
    }

    /**
     * @return false when {@code realServer} was not listed.
     */
    public boolean removeRealServer(final InetAddress realServer)
    {
        return mapFor(realServer, realServersV4, realServersV6).delete(realServer.getAddress());
    }

    public boolean isRealServer(final InetAddress address)
    {
        return mapFor(address, realServersV4, realServersV6).lookup(address.getAddress()).isPresent();
    }

    /**
     * Packets to {@code address}, one of the box's own, go to the kernel even when a real server sends them
     * (unless it is also a VIP: a DR box holds its VIPs as local addresses, and those stay jvs's).
     */
    public void addLocalAddress(final InetAddress address)
    {
        mapFor(address, localsV4, localsV6).put(address.getAddress(), PRESENT);
    }

    /**
     * @return false when {@code address} was not listed.
     */
    public boolean removeLocalAddress(final InetAddress address)
    {
        return mapFor(address, localsV4, localsV6).delete(address.getAddress());
    }

    public boolean isLocalAddress(final InetAddress address)
    {
        return mapFor(address, localsV4, localsV6).lookup(address.getAddress()).isPresent();
    }

    /**
     * Packets to an address of {@code network}/{@code length} go to jvs from now on, as a VIP's do, unless the hash
     * maps decide them first (the destination is one of the box's own addresses, or the source a real server).
     *
     * @param network the prefix's address, bits past {@code length} cleared (the kernel ignores them, and
     *                {@link #removeDestinationPrefix} would not find the entry under other bits).
     * @param length  0..32 (IPv4) or 0..128 (IPv6).
     * @throws IllegalArgumentException when the length is out of range or bits past it are set.
     */
    public void addDestinationPrefix(final InetAddress network, final int length)
    {
        mapFor(network, destinationPrefixesV4, destinationPrefixesV6).put(prefixKey(network, length), PRESENT);
    }

    /**
     * @return false when the prefix was not listed.
     */
    public boolean removeDestinationPrefix(final InetAddress network, final int length)
    {
        return mapFor(network, destinationPrefixesV4, destinationPrefixesV6).delete(prefixKey(network, length));
    }

    /**
     * @return whether {@code address} lies in one of the destination prefixes (the trie's longest match).
     */
    public boolean inDestinationPrefix(final InetAddress address)
    {
        return mapFor(address, destinationPrefixesV4, destinationPrefixesV6)
            .lookup(prefixKey(address, address.getAddress().length * Byte.SIZE)).isPresent();
    }

    /**
     * Packets from an address of {@code network}/{@code length} go to jvs from now on, as a real server's do,
     * unless the hash maps decide them first; as {@link #addDestinationPrefix}.
     */
    public void addSourcePrefix(final InetAddress network, final int length)
    {
        mapFor(network, sourcePrefixesV4, sourcePrefixesV6).put(prefixKey(network, length), PRESENT);
    }

    /**
     * @return false when the prefix was not listed.
     */
    public boolean removeSourcePrefix(final InetAddress network, final int length)
    {
        return mapFor(network, sourcePrefixesV4, sourcePrefixesV6).delete(prefixKey(network, length));
    }

    /**
     * @return whether {@code address} lies in one of the source prefixes.
     */
    public boolean inSourcePrefix(final InetAddress address)
    {
        return mapFor(address, sourcePrefixesV4, sourcePrefixesV6)
            .lookup(prefixKey(address, address.getAddress().length * Byte.SIZE)).isPresent();
    }

    /** {@code struct bpf_lpm_trie_key_u8}: the length in host (little-endian) order, then the address. */
    static byte[] prefixKey(final InetAddress network, final int length)
    {
        final byte[] address = network.getAddress();
        final int bits = address.length * Byte.SIZE;
        if (length < 0 || length > bits)
        {
            throw new IllegalArgumentException("prefix length " + length + " of " + network.getHostAddress() +
                " is not in 0.." + bits);
        }
        for (int bit = length; bit < bits; bit++)
        {
            if ((address[bit / Byte.SIZE] & (0x80 >>> (bit % Byte.SIZE))) != 0)
            {
                throw new IllegalArgumentException(network.getHostAddress() + "/" + length +
                    " has bits set past its prefix length");
            }
        }
        return ByteBuffer.allocate(Integer.BYTES + address.length).order(ByteOrder.LITTLE_ENDIAN).putInt(length)
            .put(address).array();
    }

    private static BpfMap mapFor(final InetAddress address, final BpfMap v4, final BpfMap v6)
    {
        return address instanceof Inet4Address ? v4 : v6;
    }

    /** Closes the maps; a loaded program keeps its own references to them (and counts on). */
    @Override
    public void close()
    {
        closeAll(vipsV4, vipsV6, realServersV4, realServersV6, localsV4, localsV6, destinationPrefixesV4,
            destinationPrefixesV6, sourcePrefixesV4, sourcePrefixesV6, unplaced);
    }

    private static void closeAll(final BpfMap... maps)
    {
        for (final BpfMap map : maps)
        {
            if (map != null)
            {
                map.close();
            }
        }
    }
}
