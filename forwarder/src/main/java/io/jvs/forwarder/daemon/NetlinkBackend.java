package io.jvs.forwarder.daemon;

import io.jvs.core.control.Counters;
import io.jvs.core.control.DestinationView;
import io.jvs.core.control.IpvsView;
import io.jvs.core.control.IpvsadmCommandLine;
import io.jvs.core.control.KernelError;
import io.jvs.core.control.ServiceView;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import io.jvs.forwarder.control.netlink.IpvsDestEntry;
import io.jvs.forwarder.control.netlink.IpvsDestination;
import io.jvs.forwarder.control.netlink.IpvsInfo;
import io.jvs.forwarder.control.netlink.IpvsNetlink;
import io.jvs.forwarder.control.netlink.IpvsNetlinkBackend;
import io.jvs.forwarder.control.netlink.IpvsNetlinkRequest;
import io.jvs.forwarder.control.netlink.IpvsProcFiles;
import io.jvs.forwarder.control.netlink.IpvsServiceEntry;
import io.jvs.forwarder.control.netlink.IpvsServiceKey;
import io.jvs.forwarder.control.netlink.IpvsServiceOptions;
import io.jvs.forwarder.control.netlink.IpvsStats;
import io.jvs.forwarder.control.netlink.IpvsTimeouts;
import io.jvs.forwarder.control.netlink.Netlink;

import java.util.ArrayList;
import java.util.List;

/**
 * The running daemon as the IPVS generic-netlink family sees it (Debian's ipvsadm and keepalived through the
 * preload library): each request becomes the {@link RuleCommand} ipvsadm's command line would have made of it and
 * goes through {@link IpvsBackend}, so both clients get the same checks, the same one-change-one-snapshot
 * application and the same two-step server additions; listings are {@link IpvsBackend}'s view in the kernel's
 * terms ({@code ip_vs_genl_fill_service}, {@code ip_vs_genl_fill_dest}) and {@code /proc/net/ip_vs_conn} is the
 * workers' connection pages in {@code ip_vs_conn_seq_show}'s format.
 */
final class NetlinkBackend implements IpvsNetlinkBackend
{
    private final IpvsBackend ipvs;

    NetlinkBackend(final IpvsBackend ipvs)
    {
        this.ipvs = ipvs;
    }

    @Override
    public int apply(final IpvsNetlinkRequest.Change change)
    {
        final RuleCommand command;
        try
        {
            command = command(change);
        }
        catch (final Refused refused)
        {
            if (refused.reason != null)
            {
                // Its client only gets the errno: the log says what was refused and why.
                DaemonLog.warning("IPVS netlink: refused " + refused.request + ": " + refused.reason + " (answered " +
                    refused.errnoName + ")");
            }
            return refused.errno;
        }
        if (command == null)
        {
            return 0;
        }
        final KernelError error = ipvs.apply(command);
        return error == null ? 0 : error.errno();
    }

    private RuleCommand command(final IpvsNetlinkRequest.Change change) throws Refused
    {
        return switch (change)
        {
            case IpvsNetlinkRequest.NewService add ->
                new RuleCommand.AddService(key(add.service()), settings(add.service(), add.options(), 0),
                    persistenceEngine(add.options()));
            case IpvsNetlinkRequest.SetService edit ->
            {
                final ServiceView current = find(edit.service());
                final int flags = current == null ? 0 : flags(current.settings());
                yield new RuleCommand.EditService(key(edit.service()), settings(edit.service(), edit.options(), flags),
                    persistenceEngine(edit.options()));
            }
            case IpvsNetlinkRequest.DelService delete -> new RuleCommand.DeleteService(key(delete.service()));
            case IpvsNetlinkRequest.NewDest add -> server(false, add.service(), add.destination());
            case IpvsNetlinkRequest.SetDest edit -> server(true, edit.service(), edit.destination());
            case IpvsNetlinkRequest.DelDest delete -> new RuleCommand.DeleteServer(key(delete.service()),
                delete.destination().address(), delete.destination().port());
            case IpvsNetlinkRequest.Zero zero -> new RuleCommand.Zero(zero.service() == null ? null :
                key(zero.service()));
            case IpvsNetlinkRequest.Flush flush -> new RuleCommand.Clear();
            case IpvsNetlinkRequest.SetConfig set -> new RuleCommand.SetTimeouts(set.tcp().orElse(0),
                set.tcpFin().orElse(0), set.udp().orElse(0));
            // jvs has no connection synchronisation: as a kernel without the protocol, or with no daemon running.
            case IpvsNetlinkRequest.NewDaemon start -> throw new Refused(KernelError.NOT_AVAILABLE.errno(),
                "ENOPROTOOPT", "--start-daemon " + (start.daemon().state() == IpvsNetlink.STATE_MASTER ? "master" : "backup") +
                " --mcast-interface " + start.daemon().multicastInterface() + " --syncid " + start.daemon().syncId(),
                "jvs has no connection synchronisation");
            case IpvsNetlinkRequest.DelDaemon stop -> throw new Refused(KernelError.NO_DAEMON.errno());
        };
    }

    private static RuleCommand server(final boolean edit, final IpvsServiceKey service, final IpvsDestination dest)
        throws Refused
    {
        final ForwardMethod method = switch (dest.forwarding())
        {
            case IpvsNetlink.CONN_F_MASQ -> ForwardMethod.NAT;
            case IpvsNetlink.CONN_F_DROUTE -> ForwardMethod.DR;
            case IpvsNetlink.CONN_F_TUNNEL -> ForwardMethod.TUN;
            // Local delivery and bypass have no meaning for a box that forwards everything it takes.
            default -> throw new Refused(KernelError.INVALID.errno(), "EINVAL", describe(edit, service, dest),
                "forwarding method " + dest.forwarding() + " (local delivery or bypass) is not one jvs does");
        };
        if (method == ForwardMethod.TUN && dest.tunnelType() != 0)
        {
            // Only IP in IP: GUE and GRE encapsulation are not written.
            throw new Refused(KernelError.NOT_SUPPORTED.errno(), "EPROTONOSUPPORT", describe(edit, service, dest),
                IpvsadmCommandLine.unsupportedTunnel(dest.tunnelType()));
        }
        return new RuleCommand.PutServer(edit, key(service), dest.address(), dest.port(), method, dest.weight(),
            dest.upperThreshold(), dest.lowerThreshold());
    }

    /** @return the request as ipvsadm's command line would make it, for the log. */
    private static String describe(final boolean edit, final IpvsServiceKey service, final IpvsDestination dest)
    {
        final String method = switch (dest.forwarding())
        {
            case IpvsNetlink.CONN_F_MASQ -> "-m";
            case IpvsNetlink.CONN_F_DROUTE -> "-g";
            case IpvsNetlink.CONN_F_TUNNEL -> "-i";
            default -> "forwarding " + dest.forwarding();
        };
        final StringBuilder text = new StringBuilder(edit ? "-e " : "-a ").append(key(service).toRuleString())
            .append(" -r ").append(dest.address().toBracketedString()).append(':').append(dest.port()).append(' ')
            .append(method).append(" -w ").append(dest.weight());
        if (dest.forwarding() == IpvsNetlink.CONN_F_TUNNEL && dest.tunnelType() != 0)
        {
            text.append(" --tun-type ").append(dest.tunnelType() == 1 ? "gue" : dest.tunnelType() == 2 ? "gre" :
                Integer.toString(dest.tunnelType()));
            if (dest.tunnelPort() != 0)
            {
                text.append(" --tun-port ").append(dest.tunnelPort());
            }
        }
        return text.toString();
    }

    private static ServiceKey key(final IpvsServiceKey key)
    {
        return key.isFwmark() ? ServiceKey.ofFirewallMark(key.fwmark(), key.family() == Netlink.AF_INET6) :
            ServiceKey.of(Protocol.ofNumber(key.protocol()), key.address(), key.port());
    }

    private static ServiceSettings settings(final IpvsServiceKey key, final IpvsServiceOptions options,
        final int currentFlags) throws Refused
    {
        final int flags = options.mergeFlags(currentFlags);
        final boolean v6 = key.family() == Netlink.AF_INET6;
        final int prefix;
        if (v6)
        {
            prefix = options.netmask() == 0 ? 128 : options.netmask();
        }
        else
        {
            final int mask = options.netmask() == 0 ? -1 : options.netmask();
            prefix = Integer.bitCount(mask);
            if (mask != (prefix == 0 ? 0 : -1 << (32 - prefix)))
            {
                throw new Refused(KernelError.INVALID.errno());
            }
        }
        final boolean persistent = (flags & IpvsNetlink.SVC_F_PERSISTENT) != 0;
        final SchedulerFlags scheduler = new SchedulerFlags((flags & IpvsNetlink.SVC_F_SCHED1) != 0,
            (flags & IpvsNetlink.SVC_F_SCHED2) != 0, (flags & IpvsNetlink.SVC_F_SCHED3) != 0, false, false, 0);
        return new ServiceSettings(options.scheduler(), scheduler, persistent, persistent ? options.timeout() : 0,
            prefix, (flags & IpvsNetlink.SVC_F_ONEPACKET) != 0);
    }

    private static String persistenceEngine(final IpvsServiceOptions options)
    {
        return options.persistence() == null ? "" : options.persistence();
    }

    private ServiceView find(final IpvsServiceKey key)
    {
        final ServiceKey wanted = key(key);
        return ipvs.view(false).services().stream().filter(service -> service.key().equals(wanted)).findFirst()
            .orElse(null);
    }

    @Override
    public List<IpvsServiceEntry> listServices()
    {
        final List<IpvsServiceEntry> entries = new ArrayList<>();
        for (final ServiceView service : ipvs.view(false).services())
        {
            entries.add(entry(service));
        }
        return entries;
    }

    @Override
    public List<IpvsDestEntry> listDests(final IpvsServiceKey key)
    {
        final ServiceView service = find(key);
        if (service == null)
        {
            return List.of();
        }
        final List<IpvsDestEntry> entries = new ArrayList<>();
        for (final DestinationView destination : service.destinations())
        {
            final int forwarding = switch (destination.forwardMethod())
            {
                case NAT -> IpvsNetlink.CONN_F_MASQ;
                case DR -> IpvsNetlink.CONN_F_DROUTE;
                case TUN -> IpvsNetlink.CONN_F_TUNNEL;
            };
            entries.add(new IpvsDestEntry(new IpvsDestination(destination.address(), destination.port(), forwarding,
                destination.weight(), destination.upperThreshold(), destination.lowerThreshold(), 0, 0, 0),
                destination.activeConnections(), destination.inactiveConnections(),
                destination.persistentConnections(), stats(destination.counters())));
        }
        return entries;
    }

    @Override
    public IpvsInfo info()
    {
        final IpvsView view = ipvs.view(false);
        return new IpvsInfo(view.versionCode(), view.connTableSize());
    }

    @Override
    public IpvsTimeouts timeouts()
    {
        final IpvsView view = ipvs.view(false);
        return new IpvsTimeouts(view.timeouts().tcpSeconds(), view.timeouts().tcpFinSeconds(),
            view.timeouts().udpSeconds());
    }

    @Override
    public String connectionsFile()
    {
        final StringBuilder text = new StringBuilder(
            "Pro FromIP   FPrt ToIP     TPrt DestIP   DPrt State       Expires PEName PEData\n");
        for (final io.jvs.core.control.ConnectionView entry : ipvs.view(true).connections())
        {
            appendConnection(text, entry);
        }
        return text.toString();
    }

    /**
     * Appends one line of {@code /proc/net/ip_vs_conn}, as ip_vs_conn_seq_show prints it with {@code "%-3s %s %04X %s
     * %04X %s %04X %-11s %7u\n"}: hexadecimal IPv4 addresses in host order, %pI6's eight groups for IPv6. Piece by
     * piece: a formatter a line was most of a big listing's garbage, whose collections pause the workers.
     */
    static void appendConnection(final StringBuilder text, final io.jvs.core.control.ConnectionView entry)
    {
        pad(text.append(entry.protocol()), entry.protocol().length(), 3).append(' ');
        IpvsProcFiles.appendAddress(text, entry.client()).append(' ');
        IpvsProcFiles.appendHex(text, entry.clientPort(), 4, true).append(' ');
        IpvsProcFiles.appendAddress(text, entry.virtualAddress()).append(' ');
        IpvsProcFiles.appendHex(text, entry.virtualPort(), 4, true).append(' ');
        IpvsProcFiles.appendAddress(text, entry.destination()).append(' ');
        IpvsProcFiles.appendHex(text, entry.destinationPort(), 4, true).append(' ');
        pad(text.append(entry.state()), entry.state().length(), 11).append(' ');
        final String seconds = Long.toString(entry.expiresMs() / 1000);
        pad(text, seconds.length(), 7).append(seconds).append('\n');
    }

    /** Appends the spaces that widen {@code written} characters to {@code width}, as printf's field widths do. */
    private static StringBuilder pad(final StringBuilder out, final int written, final int width)
    {
        for (int i = written; i < width; i++)
        {
            out.append(' ');
        }
        return out;
    }

    private static IpvsServiceEntry entry(final ServiceView service)
    {
        final ServiceKey key = service.key();
        final IpvsServiceKey netlinkKey = key.isFirewallMark() ?
            IpvsServiceKey.ofMark(key.v6() ? Netlink.AF_INET6 : Netlink.AF_INET, key.firewallMark()) :
            IpvsServiceKey.of(key.protocol().number(), key.address(), key.port());
        final ServiceSettings settings = service.settings();
        final int netmask = key.v6() ? settings.netmaskPrefix() :
            settings.netmaskPrefix() == 0 ? 0 : -1 << (32 - settings.netmaskPrefix());
        return new IpvsServiceEntry(netlinkKey, settings.scheduler(), null, flags(settings) | IpvsNetlink.SVC_F_HASHED,
            settings.persistenceSeconds(), netmask, stats(service.counters()));
    }

    private static int flags(final ServiceSettings settings)
    {
        return (settings.persistent() ? IpvsNetlink.SVC_F_PERSISTENT : 0) |
            (settings.onePacket() ? IpvsNetlink.SVC_F_ONEPACKET : 0) |
            (settings.flags().fallback() ? IpvsNetlink.SVC_F_SCHED1 : 0) |
            (settings.flags().port() ? IpvsNetlink.SVC_F_SCHED2 : 0) |
            (settings.flags().flag3() ? IpvsNetlink.SVC_F_SCHED3 : 0);
    }

    private static IpvsStats stats(final Counters counters)
    {
        return new IpvsStats(counters.conns(), counters.inPackets(), counters.outPackets(), counters.inBytes(),
            counters.outBytes(), counters.cps(), counters.inPps(), counters.outPps(), counters.inBps(),
            counters.outBps());
    }

    /**
     * A request the netlink form can carry and jvs cannot do, with the kernel's errno for it; with the request and
     * the reason when IPVS would have taken it, for the log.
     */
    private static final class Refused extends Exception
    {
        private static final long serialVersionUID = 1L;

        final int errno;
        final String errnoName;
        final String request;
        final String reason;

        Refused(final int errno)
        {
            this(errno, null, null, null);
        }

        Refused(final int errno, final String errnoName, final String request, final String reason)
        {
            super(null, null, false, false);
            this.errno = errno;
            this.errnoName = errnoName;
            this.request = request;
            this.reason = reason;
        }
    }
}
