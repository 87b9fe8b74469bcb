package io.jvs.forwarder.control.netlink;

import io.jvs.core.net.IpAddress;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * The text of IPVS's {@code /proc/net/ip_vs} and {@code /proc/net/ip_vs_stats}, as {@code ip_vs_info_seq_show} and
 * {@code ip_vs_stats_show} print them, from what a backend lists: scripts and monitoring agents that read those
 * files (through the preload library) parse jvs's as they parse the kernel's.
 * <p>
 * The kernel's quirks are kept: addresses in hexadecimal (IPv4 in host order, IPv6 as {@code %pI6}'s eight groups of
 * four digits), two spaces after an IPv4 service's scheduler or its one-packet flag ({@code ops}), an IPv6 service
 * never marked one-packet, and the persistence timeout in the kernel's jiffies ({@code svc->timeout},
 * seconds times the running kernel's {@code CONFIG_HZ}). {@code ip_vs_stats}'s totals are the kernel's
 * {@code tot_stats}, counted apart from the services; here they are the sums over the services there are, so a
 * deleted service's counts leave them (the rates, the estimator's moving averages, add up as the kernel's would).
 */
public final class IpvsProcFiles
{
    /** Debian's and most distributions' kernels. */
    static final int DEFAULT_HZ = 250;

    private static volatile int kernelHz;

    private IpvsProcFiles()
    {
    }

    /** @return {@code /proc/net/ip_vs}: the header, then each service and its real servers, in the listing's order. */
    public static String services(final IpvsNetlinkBackend backend)
    {
        return services(backend, hz());
    }

    static String services(final IpvsNetlinkBackend backend, final int hz)
    {
        final IpvsInfo info = backend.info();
        final StringBuilder text = new StringBuilder(256);
        text.append(String.format(Locale.ROOT, "IP Virtual Server version %d.%d.%d (size=%d)\n",
            info.version() >>> 16 & 0xFF, info.version() >>> 8 & 0xFF, info.version() & 0xFF,
            info.connectionTableSize()));
        text.append("Prot LocalAddress:Port Scheduler Flags\n");
        text.append("  -> RemoteAddress:Port Forward Weight ActiveConn InActConn\n");
        for (final IpvsServiceEntry service : backend.listServices())
        {
            final IpvsServiceKey key = service.key();
            final String onePacket = (service.flags() & IpvsNetlink.SVC_F_ONEPACKET) != 0 ? "ops " : "";
            if (key.isFwmark())
            {
                text.append(String.format(Locale.ROOT, "FWM  %08X %s %s", key.fwmark(), service.scheduler(),
                    onePacket));
            }
            else if (key.address().isV6())
            {
                text.append(String.format(Locale.ROOT, "%s  [%s]:%04X %s ", protocolName(key.protocol()),
                    address(key.address()), key.port(), service.scheduler()));
            }
            else
            {
                text.append(String.format(Locale.ROOT, "%s  %s:%04X %s %s ", protocolName(key.protocol()),
                    address(key.address()), key.port(), service.scheduler(), onePacket));
            }
            if ((service.flags() & IpvsNetlink.SVC_F_PERSISTENT) != 0)
            {
                text.append(String.format(Locale.ROOT, "persistent %d %08X\n", (long)service.timeout() * hz,
                    service.netmask()));
            }
            else
            {
                text.append('\n');
            }
            for (final IpvsDestEntry dest : backend.listDests(key))
            {
                final IpvsDestination destination = dest.destination();
                final String where = destination.address().isV6() ?
                    String.format(Locale.ROOT, "[%s]:%04X", address(destination.address()), destination.port()) :
                    String.format(Locale.ROOT, "%s:%04X", address(destination.address()), destination.port());
                text.append(String.format(Locale.ROOT, "  -> %s      %-7s %-6d %-10d %-10d\n", where,
                    forwardName(destination.forwarding()), destination.weight(), dest.activeConns(),
                    dest.inactiveConns()));
            }
        }
        return text.toString();
    }

    /** @return {@code /proc/net/ip_vs_stats}: the totals and the rates, in hexadecimal. */
    public static String stats(final IpvsNetlinkBackend backend)
    {
        long conns = 0;
        long inPackets = 0;
        long outPackets = 0;
        long inBytes = 0;
        long outBytes = 0;
        long cps = 0;
        long inPps = 0;
        long outPps = 0;
        long inBps = 0;
        long outBps = 0;
        for (final IpvsServiceEntry service : backend.listServices())
        {
            final IpvsStats stats = service.stats();
            conns += stats.conns();
            inPackets += stats.inPackets();
            outPackets += stats.outPackets();
            inBytes += stats.inBytes();
            outBytes += stats.outBytes();
            cps += stats.cps();
            inPps += stats.inPps();
            outPps += stats.outPps();
            inBps += stats.inBps();
            outBps += stats.outBps();
        }
        return "   Total Incoming Outgoing         Incoming         Outgoing\n" +
            "   Conns  Packets  Packets            Bytes            Bytes\n" +
            String.format(Locale.ROOT, "%8X %8X %8X %16X %16X\n\n", conns, inPackets, outPackets, inBytes, outBytes) +
            " Conns/s   Pkts/s   Pkts/s          Bytes/s          Bytes/s\n" +
            String.format(Locale.ROOT, "%8X %8X %8X %16X %16X\n", cps, inPps, outPps, inBps, outBps);
    }

    /**
     * @return the address as IPVS's files print it: IPv4 as eight hexadecimal digits in host order, IPv6 as
     *         {@code %pI6} does (eight groups of four lower-case digits).
     */
    public static String address(final IpAddress address)
    {
        return appendAddress(new StringBuilder(39), address).toString();
    }

    /**
     * {@link #address} appended: a listing of every connection calls it three times an entry, without the garbage of a
     * formatter.
     *
     * @return {@code out}.
     */
    public static StringBuilder appendAddress(final StringBuilder out, final IpAddress address)
    {
        if (!address.isV6())
        {
            return appendHex(out, address.v4() & 0xFFFF_FFFFL, 8, true);
        }
        for (int group = 0; group < 8; group++)
        {
            final long half = group < 4 ? address.high() : address.low();
            if (group != 0)
            {
                out.append(':');
            }
            appendHex(out, half >>> (48 - 16 * (group % 4)) & 0xFFFF, 4, false);
        }
        return out;
    }

    /**
     * Appends the value's low {@code digits} hexadecimal digits, zero-padded, as {@code %0NX} or {@code %0Nx} print
     * a value that fits them.
     *
     * @return {@code out}.
     */
    public static StringBuilder appendHex(final StringBuilder out, final long value, final int digits,
        final boolean upperCase)
    {
        final String alphabet = upperCase ? "0123456789ABCDEF" : "0123456789abcdef";
        for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
        {
            out.append(alphabet.charAt((int)(value >>> shift) & 0xF));
        }
        return out;
    }

    /** ip_vs_proto_name. */
    private static String protocolName(final int protocol)
    {
        return switch (protocol)
        {
            case 6 -> "TCP";
            case 17 -> "UDP";
            case 132 -> "SCTP";
            case 1 -> "ICMP";
            case 58 -> "ICMPv6";
            default -> String.format(Locale.ROOT, "IP_%d", protocol);
        };
    }

    /** ip_vs_fwd_name. */
    private static String forwardName(final int forwarding)
    {
        return switch (forwarding & IpvsNetlink.CONN_F_FWD_MASK)
        {
            case IpvsNetlink.CONN_F_LOCALNODE -> "Local";
            case IpvsNetlink.CONN_F_TUNNEL -> "Tunnel";
            case IpvsNetlink.CONN_F_DROUTE -> "Route";
            default -> "Masq";
        };
    }

    /** @return the running kernel's CONFIG_HZ, from its configuration, or {@link #DEFAULT_HZ}. */
    static int hz()
    {
        int hz = kernelHz;
        if (hz == 0)
        {
            hz = readHz();
            kernelHz = hz;
        }
        return hz;
    }

    private static int readHz()
    {
        final Path boot = Path.of("/boot/config-" + System.getProperty("os.version"));
        try
        {
            if (Files.isReadable(boot))
            {
                return hzIn(new String(Files.readAllBytes(boot), StandardCharsets.US_ASCII));
            }
            final Path proc = Path.of("/proc/config.gz");
            if (Files.isReadable(proc))
            {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(proc)))
                {
                    return hzIn(new String(in.readAllBytes(), StandardCharsets.US_ASCII));
                }
            }
        }
        catch (final IOException | RuntimeException unreadable)
        {
            return DEFAULT_HZ;
        }
        return DEFAULT_HZ;
    }

    static int hzIn(final String config)
    {
        for (final String line : config.split("\n"))
        {
            if (line.startsWith("CONFIG_HZ="))
            {
                try
                {
                    final int hz = Integer.parseInt(line.substring("CONFIG_HZ=".length()).trim());
                    return hz > 0 ? hz : DEFAULT_HZ;
                }
                catch (final NumberFormatException notANumber)
                {
                    return DEFAULT_HZ;
                }
            }
        }
        return DEFAULT_HZ;
    }
}
