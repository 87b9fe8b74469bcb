package io.jvs.forwarder.control.netlink;

import io.jvs.core.net.IpAddress;

import java.nio.ByteBuffer;
import java.util.OptionalInt;

/**
 * Decodes IPVS generic netlink requests into {@link IpvsNetlinkRequest}s and encodes the replies' attributes, as
 * {@code ip_vs_ctl.c}'s netlink half reads and writes them: {@code ip_vs_genl_parse_service} (the family and a
 * fwmark or protocol, address and port; the scheduler, flags, timeout and netmask for an add or edit),
 * {@code ip_vs_genl_parse_dest}, {@code ip_vs_genl_set_config}, {@code ip_vs_genl_fill_service},
 * {@code ip_vs_genl_fill_dest}, {@code ip_vs_genl_fill_stats(64)}. Whatever the kernel refuses before it looks at
 * its tables is refused here with the kernel's errno.
 */
public final class IpvsNetlinkCodec
{
    /** {@code sizeof(union nf_inet_addr)}: addresses travel as 16 bytes whatever the family. */
    private static final int ADDRESS_LENGTH = 16;
    /** {@code sizeof(struct ip_vs_flags)}: flags and mask. */
    private static final int FLAGS_LENGTH = 8;
    /** INT_MAX / HZ for HZ 250: the longest timeout, in seconds, the kernel's set_timeout accepts. */
    static final int MAX_TIMEOUT = Integer.MAX_VALUE / 250;

    private IpvsNetlinkCodec()
    {
    }

    /**
     * @param command    the generic netlink command.
     * @param dump       whether the request asked for a dump ({@code NLM_F_DUMP}).
     * @param attributes the bytes after the generic netlink header.
     * @return the request.
     * @throws NetlinkException with the kernel's errno: EOPNOTSUPP for a command the family has no handler for in
     *                          that mode, EINVAL for a missing or malformed attribute, EAFNOSUPPORT for a family
     *                          other than IPv4 and IPv6.
     */
    public static IpvsNetlinkRequest decode(final int command, final boolean dump, final ByteBuffer attributes)
        throws NetlinkException
    {
        final NetlinkAttributes top = NetlinkAttributes.parse(attributes, IpvsNetlink.CMD_ATTR_MAX);
        if (dump)
        {
            return switch (command)
            {
                case IpvsNetlink.CMD_GET_SERVICE -> new IpvsNetlinkRequest.ListServices();
                case IpvsNetlink.CMD_GET_DEST -> new IpvsNetlinkRequest.ListDests(dumpedService(top));
                case IpvsNetlink.CMD_GET_DAEMON -> new IpvsNetlinkRequest.ListDaemons();
                default -> throw new NetlinkException(Netlink.EOPNOTSUPP, "IPVS command " + command +
                    " cannot be dumped");
            };
        }
        return switch (command)
        {
            case IpvsNetlink.CMD_NEW_SERVICE -> new IpvsNetlinkRequest.NewService(service(top), options(top));
            case IpvsNetlink.CMD_SET_SERVICE -> new IpvsNetlinkRequest.SetService(service(top), options(top));
            case IpvsNetlink.CMD_DEL_SERVICE -> new IpvsNetlinkRequest.DelService(service(top));
            case IpvsNetlink.CMD_GET_SERVICE -> new IpvsNetlinkRequest.GetService(service(top));
            case IpvsNetlink.CMD_NEW_DEST, IpvsNetlink.CMD_SET_DEST, IpvsNetlink.CMD_DEL_DEST -> destCommand(command,
                top);
            case IpvsNetlink.CMD_NEW_DAEMON -> new IpvsNetlinkRequest.NewDaemon(daemon(top));
            case IpvsNetlink.CMD_DEL_DAEMON -> new IpvsNetlinkRequest.DelDaemon(daemonState(top));
            case IpvsNetlink.CMD_SET_CONFIG -> new IpvsNetlinkRequest.SetConfig(
                timeout(top, IpvsNetlink.CMD_ATTR_TIMEOUT_TCP), timeout(top, IpvsNetlink.CMD_ATTR_TIMEOUT_TCP_FIN),
                timeout(top, IpvsNetlink.CMD_ATTR_TIMEOUT_UDP));
            case IpvsNetlink.CMD_GET_CONFIG -> new IpvsNetlinkRequest.GetConfig();
            case IpvsNetlink.CMD_GET_INFO -> new IpvsNetlinkRequest.GetInfo();
            case IpvsNetlink.CMD_ZERO -> new IpvsNetlinkRequest.Zero(top.has(IpvsNetlink.CMD_ATTR_SERVICE) ?
                service(top) : null);
            case IpvsNetlink.CMD_FLUSH -> new IpvsNetlinkRequest.Flush();
            default -> throw new NetlinkException(Netlink.EOPNOTSUPP, "IPVS has no command " + command);
        };
    }

    /** ip_vs_genl_dump_dests: a service it cannot parse gives an empty dump, not an error. */
    private static IpvsServiceKey dumpedService(final NetlinkAttributes top)
    {
        try
        {
            return service(top);
        }
        catch (final NetlinkException ex)
        {
            return null;
        }
    }

    /**
     * ip_vs_set_timeout: a timeout of 0 (what ipvsadm --set sends for "keep") leaves it as it is, and one that does
     * not fit the kernel's jiffies ({@code INT_MAX / HZ}, HZ 250 as Debian's kernels) is refused.
     */
    private static OptionalInt timeout(final NetlinkAttributes attributes, final int type) throws NetlinkException
    {
        if (!attributes.has(type))
        {
            return OptionalInt.empty();
        }
        final int seconds = attributes.u32(type);
        if (seconds < 0 || seconds > MAX_TIMEOUT)
        {
            throw new NetlinkException(Netlink.EINVAL, "a timeout of " + Integer.toUnsignedString(seconds) +
                " s is out of range");
        }
        return seconds == 0 ? OptionalInt.empty() : OptionalInt.of(seconds);
    }

    private static NetlinkAttributes serviceAttributes(final NetlinkAttributes top) throws NetlinkException
    {
        if (!top.has(IpvsNetlink.CMD_ATTR_SERVICE))
        {
            throw new NetlinkException(Netlink.EINVAL, "the request names no service (IPVS_CMD_ATTR_SERVICE)");
        }
        return top.nested(IpvsNetlink.CMD_ATTR_SERVICE, IpvsNetlink.SVC_ATTR_MAX);
    }

    /** ip_vs_genl_parse_service's identifying half. */
    static IpvsServiceKey service(final NetlinkAttributes top) throws NetlinkException
    {
        final NetlinkAttributes service = serviceAttributes(top);
        final boolean byMark = service.has(IpvsNetlink.SVC_ATTR_FWMARK);
        if (!service.has(IpvsNetlink.SVC_ATTR_AF) || !(byMark || service.has(IpvsNetlink.SVC_ATTR_PORT) &&
            service.has(IpvsNetlink.SVC_ATTR_PROTOCOL) && service.has(IpvsNetlink.SVC_ATTR_ADDR)))
        {
            throw new NetlinkException(Netlink.EINVAL, "the service needs its family and a fwmark or a protocol, " +
                "address and port");
        }
        final int family = service.u16(IpvsNetlink.SVC_ATTR_AF);
        if (family != Netlink.AF_INET && family != Netlink.AF_INET6)
        {
            throw new NetlinkException(Netlink.EAFNOSUPPORT, "address family " + family + " is not supported");
        }
        if (byMark)
        {
            // The kernel takes a mark service as TCP whatever else is sent.
            return IpvsServiceKey.ofMark(family, service.u32(IpvsNetlink.SVC_ATTR_FWMARK));
        }
        return new IpvsServiceKey(family, service.u16(IpvsNetlink.SVC_ATTR_PROTOCOL),
            address(service, IpvsNetlink.SVC_ATTR_ADDR, family), service.be16(IpvsNetlink.SVC_ATTR_PORT), 0);
    }

    /** ip_vs_genl_parse_service's full half: an add or edit needs all four settings. */
    private static IpvsServiceOptions options(final NetlinkAttributes top) throws NetlinkException
    {
        final NetlinkAttributes service = serviceAttributes(top);
        if (!(service.has(IpvsNetlink.SVC_ATTR_SCHED_NAME) && service.has(IpvsNetlink.SVC_ATTR_FLAGS) &&
            service.has(IpvsNetlink.SVC_ATTR_TIMEOUT) && service.has(IpvsNetlink.SVC_ATTR_NETMASK)))
        {
            throw new NetlinkException(Netlink.EINVAL, "adding or editing a service needs its scheduler, flags, " +
                "timeout and netmask");
        }
        final byte[] flags = service.bytes(IpvsNetlink.SVC_ATTR_FLAGS);
        if (flags.length < FLAGS_LENGTH)
        {
            throw new NetlinkException(Netlink.EINVAL, "the service flags have " + flags.length + " bytes, not " +
                FLAGS_LENGTH);
        }
        final ByteBuffer flagWords = ByteBuffer.wrap(flags).order(Netlink.ORDER);
        final int family = service.u16(IpvsNetlink.SVC_ATTR_AF);
        final int netmask = family == Netlink.AF_INET6 ? service.u32(IpvsNetlink.SVC_ATTR_NETMASK) :
            service.be32(IpvsNetlink.SVC_ATTR_NETMASK);
        return new IpvsServiceOptions(service.string(IpvsNetlink.SVC_ATTR_SCHED_NAME, IpvsNetlink.NAME_MAXLEN - 1),
            service.has(IpvsNetlink.SVC_ATTR_PE_NAME) ?
                service.string(IpvsNetlink.SVC_ATTR_PE_NAME, IpvsNetlink.NAME_MAXLEN - 1) : null,
            flagWords.getInt(0), flagWords.getInt(4), service.u32(IpvsNetlink.SVC_ATTR_TIMEOUT), netmask);
    }

    private static IpvsNetlinkRequest destCommand(final int command, final NetlinkAttributes top)
        throws NetlinkException
    {
        final IpvsServiceKey service = service(top);
        if (!top.has(IpvsNetlink.CMD_ATTR_DEST))
        {
            throw new NetlinkException(Netlink.EINVAL, "the request names no real server (IPVS_CMD_ATTR_DEST)");
        }
        final NetlinkAttributes dest = top.nested(IpvsNetlink.CMD_ATTR_DEST, IpvsNetlink.DEST_ATTR_MAX);
        if (!(dest.has(IpvsNetlink.DEST_ATTR_ADDR) && dest.has(IpvsNetlink.DEST_ATTR_PORT)))
        {
            throw new NetlinkException(Netlink.EINVAL, "the real server needs its address and port");
        }
        // Old clients send no family: the service's, as ip_vs_genl_set_cmd assumes.
        final int family = dest.has(IpvsNetlink.DEST_ATTR_ADDR_FAMILY) ?
            dest.u16(IpvsNetlink.DEST_ATTR_ADDR_FAMILY) : service.family();
        if (family != Netlink.AF_INET && family != Netlink.AF_INET6)
        {
            throw new NetlinkException(Netlink.EAFNOSUPPORT, "address family " + family + " is not supported");
        }
        final IpAddress address = address(dest, IpvsNetlink.DEST_ATTR_ADDR, family);
        final int port = dest.be16(IpvsNetlink.DEST_ATTR_PORT);
        if (command == IpvsNetlink.CMD_DEL_DEST)
        {
            return new IpvsNetlinkRequest.DelDest(service, IpvsDestination.key(address, port));
        }
        if (!(dest.has(IpvsNetlink.DEST_ATTR_FWD_METHOD) && dest.has(IpvsNetlink.DEST_ATTR_WEIGHT) &&
            dest.has(IpvsNetlink.DEST_ATTR_U_THRESH) && dest.has(IpvsNetlink.DEST_ATTR_L_THRESH)))
        {
            throw new NetlinkException(Netlink.EINVAL, "adding or editing a real server needs its forwarding " +
                "method, weight and thresholds");
        }
        final int forwarding = dest.u32(IpvsNetlink.DEST_ATTR_FWD_METHOD) & IpvsNetlink.CONN_F_FWD_MASK;
        // A server of another family than its service can only be reached through a tunnel.
        if (family != service.family() && forwarding != IpvsNetlink.CONN_F_TUNNEL)
        {
            throw new NetlinkException(Netlink.EINVAL, "a real server of another address family than its service " +
                "needs tunnelling");
        }
        final IpvsDestination destination = new IpvsDestination(address, port, forwarding,
            dest.u32(IpvsNetlink.DEST_ATTR_WEIGHT), dest.u32(IpvsNetlink.DEST_ATTR_U_THRESH),
            dest.u32(IpvsNetlink.DEST_ATTR_L_THRESH),
            dest.has(IpvsNetlink.DEST_ATTR_TUN_TYPE) ? dest.u8(IpvsNetlink.DEST_ATTR_TUN_TYPE) : 0,
            dest.has(IpvsNetlink.DEST_ATTR_TUN_PORT) ? dest.be16(IpvsNetlink.DEST_ATTR_TUN_PORT) : 0,
            dest.has(IpvsNetlink.DEST_ATTR_TUN_FLAGS) ? dest.u16(IpvsNetlink.DEST_ATTR_TUN_FLAGS) : 0);
        return command == IpvsNetlink.CMD_NEW_DEST ? new IpvsNetlinkRequest.NewDest(service, destination) :
            new IpvsNetlinkRequest.SetDest(service, destination);
    }

    private static int daemonState(final NetlinkAttributes top) throws NetlinkException
    {
        final NetlinkAttributes daemon = daemonAttributes(top);
        if (!daemon.has(IpvsNetlink.DAEMON_ATTR_STATE))
        {
            throw new NetlinkException(Netlink.EINVAL, "stopping a sync daemon needs its state");
        }
        return daemon.u32(IpvsNetlink.DAEMON_ATTR_STATE);
    }

    private static IpvsDaemon daemon(final NetlinkAttributes top) throws NetlinkException
    {
        final NetlinkAttributes daemon = daemonAttributes(top);
        if (!(daemon.has(IpvsNetlink.DAEMON_ATTR_STATE) && daemon.has(IpvsNetlink.DAEMON_ATTR_MCAST_IFN) &&
            daemon.has(IpvsNetlink.DAEMON_ATTR_SYNC_ID)))
        {
            throw new NetlinkException(Netlink.EINVAL, "starting a sync daemon needs its state, interface and id");
        }
        return new IpvsDaemon(daemon.u32(IpvsNetlink.DAEMON_ATTR_STATE),
            daemon.string(IpvsNetlink.DAEMON_ATTR_MCAST_IFN, IpvsNetlink.NAME_MAXLEN - 1),
            daemon.u32(IpvsNetlink.DAEMON_ATTR_SYNC_ID));
    }

    private static NetlinkAttributes daemonAttributes(final NetlinkAttributes top) throws NetlinkException
    {
        if (!top.has(IpvsNetlink.CMD_ATTR_DAEMON))
        {
            throw new NetlinkException(Netlink.EINVAL, "the request has no daemon (IPVS_CMD_ATTR_DAEMON)");
        }
        return top.nested(IpvsNetlink.CMD_ATTR_DAEMON, IpvsNetlink.DAEMON_ATTR_MAX);
    }

    /** nla_memcpy into a zeroed nf_inet_addr: a shorter value leaves the rest zero, a longer one is refused. */
    private static IpAddress address(final NetlinkAttributes attributes, final int type, final int family)
        throws NetlinkException
    {
        final byte[] value = attributes.bytes(type);
        if (value.length > ADDRESS_LENGTH)
        {
            throw new NetlinkException(Netlink.EINVAL, "an address of " + value.length + " bytes is longer than " +
                ADDRESS_LENGTH);
        }
        final ByteBuffer bytes = ByteBuffer.allocate(ADDRESS_LENGTH).put(value).flip();
        return family == Netlink.AF_INET6 ? IpAddress.ofV6(bytes.getLong(0), bytes.getLong(8)) :
            IpAddress.ofV4(bytes.getInt(0));
    }

    private static byte[] addressBytes(final IpAddress address)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(ADDRESS_LENGTH);
        if (address.isV6())
        {
            bytes.putLong(address.high()).putLong(address.low());
        }
        else
        {
            bytes.putInt(address.v4());
        }
        return bytes.array();
    }

    // ---------------------------------------------------------------------------------------------------------
    // Encoding (the reply's attributes, after the generic netlink header)

    /** Puts the service's {@code IPVS_CMD_ATTR_SERVICE} nest, as ip_vs_genl_fill_service. */
    public static void putService(final NetlinkWriter out, final IpvsServiceEntry entry)
    {
        final IpvsServiceKey key = entry.key();
        final int nest = out.nest(IpvsNetlink.CMD_ATTR_SERVICE);
        out.u16(IpvsNetlink.SVC_ATTR_AF, key.family());
        if (key.isFwmark())
        {
            out.u32(IpvsNetlink.SVC_ATTR_FWMARK, key.fwmark());
        }
        else
        {
            out.u16(IpvsNetlink.SVC_ATTR_PROTOCOL, key.protocol());
            out.attribute(IpvsNetlink.SVC_ATTR_ADDR, addressBytes(key.address()));
            out.be16(IpvsNetlink.SVC_ATTR_PORT, key.port());
        }
        out.string(IpvsNetlink.SVC_ATTR_SCHED_NAME, entry.scheduler());
        if (entry.persistence() != null)
        {
            out.string(IpvsNetlink.SVC_ATTR_PE_NAME, entry.persistence());
        }
        out.attribute(IpvsNetlink.SVC_ATTR_FLAGS, ByteBuffer.allocate(FLAGS_LENGTH).order(Netlink.ORDER)
            .putInt(entry.flags()).putInt(~0).array());
        out.u32(IpvsNetlink.SVC_ATTR_TIMEOUT, entry.timeout());
        if (key.family() == Netlink.AF_INET6)
        {
            out.u32(IpvsNetlink.SVC_ATTR_NETMASK, entry.netmask());
        }
        else
        {
            out.be32(IpvsNetlink.SVC_ATTR_NETMASK, entry.netmask());
        }
        putStats(out, IpvsNetlink.SVC_ATTR_STATS, entry.stats());
        putStats64(out, IpvsNetlink.SVC_ATTR_STATS64, entry.stats());
        out.end(nest);
    }

    /** Puts the real server's {@code IPVS_CMD_ATTR_DEST} nest, as ip_vs_genl_fill_dest. */
    public static void putDest(final NetlinkWriter out, final IpvsDestEntry entry)
    {
        final IpvsDestination dest = entry.destination();
        final int nest = out.nest(IpvsNetlink.CMD_ATTR_DEST);
        out.attribute(IpvsNetlink.DEST_ATTR_ADDR, addressBytes(dest.address()));
        out.be16(IpvsNetlink.DEST_ATTR_PORT, dest.port());
        out.u32(IpvsNetlink.DEST_ATTR_FWD_METHOD, dest.forwarding() & IpvsNetlink.CONN_F_FWD_MASK);
        out.u32(IpvsNetlink.DEST_ATTR_WEIGHT, dest.weight());
        out.u8(IpvsNetlink.DEST_ATTR_TUN_TYPE, dest.tunnelType());
        out.be16(IpvsNetlink.DEST_ATTR_TUN_PORT, dest.tunnelPort());
        out.u16(IpvsNetlink.DEST_ATTR_TUN_FLAGS, dest.tunnelFlags());
        out.u32(IpvsNetlink.DEST_ATTR_U_THRESH, dest.upperThreshold());
        out.u32(IpvsNetlink.DEST_ATTR_L_THRESH, dest.lowerThreshold());
        out.u32(IpvsNetlink.DEST_ATTR_ACTIVE_CONNS, entry.activeConns());
        out.u32(IpvsNetlink.DEST_ATTR_INACT_CONNS, entry.inactiveConns());
        out.u32(IpvsNetlink.DEST_ATTR_PERSIST_CONNS, entry.persistentConns());
        out.u16(IpvsNetlink.DEST_ATTR_ADDR_FAMILY, dest.family());
        putStats(out, IpvsNetlink.DEST_ATTR_STATS, entry.stats());
        putStats64(out, IpvsNetlink.DEST_ATTR_STATS64, entry.stats());
        out.end(nest);
    }

    /** The 32-bit stats nest: counts and rates cut to 32 bits, bytes in 64. */
    private static void putStats(final NetlinkWriter out, final int type, final IpvsStats stats)
    {
        final int nest = out.nest(type);
        out.u32(IpvsNetlink.STATS_ATTR_CONNS, (int)stats.conns());
        out.u32(IpvsNetlink.STATS_ATTR_INPKTS, (int)stats.inPackets());
        out.u32(IpvsNetlink.STATS_ATTR_OUTPKTS, (int)stats.outPackets());
        out.u64(IpvsNetlink.STATS_ATTR_INBYTES, stats.inBytes());
        out.u64(IpvsNetlink.STATS_ATTR_OUTBYTES, stats.outBytes());
        out.u32(IpvsNetlink.STATS_ATTR_CPS, (int)stats.cps());
        out.u32(IpvsNetlink.STATS_ATTR_INPPS, (int)stats.inPps());
        out.u32(IpvsNetlink.STATS_ATTR_OUTPPS, (int)stats.outPps());
        out.u32(IpvsNetlink.STATS_ATTR_INBPS, (int)stats.inBps());
        out.u32(IpvsNetlink.STATS_ATTR_OUTBPS, (int)stats.outBps());
        out.end(nest);
    }

    private static void putStats64(final NetlinkWriter out, final int type, final IpvsStats stats)
    {
        final int nest = out.nest(type);
        out.u64(IpvsNetlink.STATS_ATTR_CONNS, stats.conns());
        out.u64(IpvsNetlink.STATS_ATTR_INPKTS, stats.inPackets());
        out.u64(IpvsNetlink.STATS_ATTR_OUTPKTS, stats.outPackets());
        out.u64(IpvsNetlink.STATS_ATTR_INBYTES, stats.inBytes());
        out.u64(IpvsNetlink.STATS_ATTR_OUTBYTES, stats.outBytes());
        out.u64(IpvsNetlink.STATS_ATTR_CPS, stats.cps());
        out.u64(IpvsNetlink.STATS_ATTR_INPPS, stats.inPps());
        out.u64(IpvsNetlink.STATS_ATTR_OUTPPS, stats.outPps());
        out.u64(IpvsNetlink.STATS_ATTR_INBPS, stats.inBps());
        out.u64(IpvsNetlink.STATS_ATTR_OUTBPS, stats.outBps());
        out.end(nest);
    }

    /** Puts GET_INFO's attributes. */
    public static void putInfo(final NetlinkWriter out, final IpvsInfo info)
    {
        out.u32(IpvsNetlink.INFO_ATTR_VERSION, info.version());
        out.u32(IpvsNetlink.INFO_ATTR_CONN_TAB_SIZE, info.connectionTableSize());
    }

    /** Puts GET_CONFIG's attributes. */
    public static void putTimeouts(final NetlinkWriter out, final IpvsTimeouts timeouts)
    {
        out.u32(IpvsNetlink.CMD_ATTR_TIMEOUT_TCP, timeouts.tcp());
        out.u32(IpvsNetlink.CMD_ATTR_TIMEOUT_TCP_FIN, timeouts.tcpFin());
        out.u32(IpvsNetlink.CMD_ATTR_TIMEOUT_UDP, timeouts.udp());
    }

    /** Puts one sync daemon's {@code IPVS_CMD_ATTR_DAEMON} nest, as ip_vs_genl_fill_daemon. */
    public static void putDaemon(final NetlinkWriter out, final IpvsDaemon daemon)
    {
        final int nest = out.nest(IpvsNetlink.CMD_ATTR_DAEMON);
        out.u32(IpvsNetlink.DAEMON_ATTR_STATE, daemon.state());
        out.string(IpvsNetlink.DAEMON_ATTR_MCAST_IFN, daemon.multicastInterface());
        out.u32(IpvsNetlink.DAEMON_ATTR_SYNC_ID, daemon.syncId());
        out.end(nest);
    }
}
