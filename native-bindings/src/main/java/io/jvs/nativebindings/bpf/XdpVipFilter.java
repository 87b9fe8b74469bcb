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
 * keyed by the address in network byte order; and its {@link XdpPrograms#UNPLACED} counter. Adding or
 * removing an address takes effect on the next packet, with the program attached: the maps are shared between
 * this process and the kernel. The AF_PACKET port's programs read the same maps
 * ({@link TcPrograms#stealJvsTraffic}, and the VIPs {@link FanoutPrograms#clientDispatch}), so one filter serves
 * every program of a box.
 */
public final class XdpVipFilter implements AutoCloseable
{
    private static final int IPV4_BYTES = 4;
    private static final int IPV6_BYTES = 16;
    /** The value is not read by the program; 4 bytes leave room for a VIP index later. */
    private static final byte[] PRESENT = {1, 0, 0, 0};

    private final BpfMap vipsV4;
    private final BpfMap vipsV6;
    private final BpfMap realServersV4;
    private final BpfMap realServersV6;
    private final BpfMap localsV4;
    private final BpfMap localsV6;
    private final BpfMap unplaced;

    private XdpVipFilter(final BpfMap vipsV4, final BpfMap vipsV6, final BpfMap realServersV4,
        final BpfMap realServersV6, final BpfMap localsV4, final BpfMap localsV6, final BpfMap unplaced)
    {
        this.unplaced = unplaced;
        this.localsV4 = localsV4;
        this.localsV6 = localsV6;
        this.vipsV4 = vipsV4;
        this.vipsV6 = vipsV6;
        this.realServersV4 = realServersV4;
        this.realServersV6 = realServersV6;
    }

    /**
     * Creates the six address maps, empty, and the counter, zero.
     *
     * @param maxAddresses how many addresses each map holds (per family, VIPs, local addresses and real
     *                     servers apart).
     */
    public static XdpVipFilter create(final Syscalls syscalls, final int maxAddresses)
    {
        BpfMap vipsV4 = null;
        BpfMap vipsV6 = null;
        BpfMap realsV4 = null;
        BpfMap realsV6 = null;
        BpfMap localsV4 = null;
        BpfMap localsV6 = null;
        try
        {
            vipsV4 = BpfMap.createHash(syscalls, "jvs_vips_v4", IPV4_BYTES, PRESENT.length, maxAddresses);
            vipsV6 = BpfMap.createHash(syscalls, "jvs_vips_v6", IPV6_BYTES, PRESENT.length, maxAddresses);
            realsV4 = BpfMap.createHash(syscalls, "jvs_reals_v4", IPV4_BYTES, PRESENT.length, maxAddresses);
            realsV6 = BpfMap.createHash(syscalls, "jvs_reals_v6", IPV6_BYTES, PRESENT.length, maxAddresses);
            localsV4 = BpfMap.createHash(syscalls, "jvs_locals_v4", IPV4_BYTES, PRESENT.length, maxAddresses);
            localsV6 = BpfMap.createHash(syscalls, "jvs_locals_v6", IPV6_BYTES, PRESENT.length, maxAddresses);
            final BpfMap unplaced = BpfMap.createArray(syscalls, "jvs_unplaced", Long.BYTES, 1);
            return new XdpVipFilter(vipsV4, vipsV6, realsV4, realsV6, localsV4, localsV6, unplaced);
        }
        catch (final RuntimeException ex)
        {
            closeAll(vipsV4, vipsV6, realsV4, realsV6, localsV4, localsV6);
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
        return BpfProgram.loadXdp(syscalls, name, XdpPrograms.redirectJvsTraffic(whenNoSocket).link(mapFds(xsks)));
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
        return Map.of(XdpPrograms.VIPS_V4, vipsV4.fd(), XdpPrograms.VIPS_V6, vipsV6.fd(),
            XdpPrograms.REAL_SERVERS_V4, realServersV4.fd(), XdpPrograms.REAL_SERVERS_V6, realServersV6.fd(),
            XdpPrograms.LOCALS_V4, localsV4.fd(), XdpPrograms.LOCALS_V6, localsV6.fd(), XdpPrograms.UNPLACED,
            unplaced.fd());
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

    /** Packets to {@code vip} go to jvs from now on. */
    public void addVip(final InetAddress vip)
    {
        mapFor(vip, vipsV4, vipsV6).put(vip.getAddress(), PRESENT);
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

    private static BpfMap mapFor(final InetAddress address, final BpfMap v4, final BpfMap v6)
    {
        return address instanceof Inet4Address ? v4 : v6;
    }

    /** Closes the maps; a loaded program keeps its own references to them (and counts on). */
    @Override
    public void close()
    {
        closeAll(vipsV4, vipsV6, realServersV4, realServersV6, localsV4, localsV6, unplaced);
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
