package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;

import java.io.UncheckedIOException;
import java.util.List;

/**
 * Writes what ipvsadm 1.31 prints for a state, byte for byte: {@code list_all}, {@code list_service},
 * {@code print_title}, {@code print_service_entry}, {@code print_largenum}, {@code list_timeout} and
 * {@code print_conn} of ipvsadm.c, with the widths, left-justified columns (and so their trailing spaces) and
 * truncations of their printf formats. Addresses are written as glibc's inet_ntop writes them; without {@code -n}
 * names come from a {@link Names} (ipvsadm asks gethostbyaddr and getservbyport), falling back to numbers.
 * <p>
 * jvs's own scheduler flags (kernel-hash, seed-overload, table-size) follow ipvsadm's in {@code -b} and in the
 * listing's parentheses; a state ipvsadm itself can make never has them.
 */
public final class IpvsadmFormatter
{
    /** How much text {@link #connections(IpvsView, ListFormat, Names, Appendable)} gathers before it writes it. */
    private static final int CHUNK_CHARS = 64 * 1024;

    private static final String TITLE_SERVICE = "Prot LocalAddress:Port";
    private static final String TITLE_SERVER = "  -> RemoteAddress:Port\n";

    private IpvsadmFormatter()
    {
    }

    /**
     * {@code ipvsadm -L [options]}: the version header, the title and every service; or, for one service
     * ({@code -L -t VIP:PORT}), the title and that service without the header.
     *
     * @param view    the state.
     * @param service the one service, or null for all; it must be in the view (else ipvsadm prints
     *                "No such service" on standard error and exits 1).
     * @param format  the listing options.
     * @param names   name lookups for a listing without -n.
     * @return the text.
     */
    public static String list(final IpvsView view, final ServiceKey service, final ListFormat format, final Names names)
    {
        final StringBuilder out = new StringBuilder();
        if (service != null)
        {
            final ServiceView one = view.service(service);
            if (one == null)
            {
                throw new IllegalArgumentException("No such service");
            }
            title(out, format);
            service(out, one, format, false, names);
            return out.toString();
        }
        final int version = view.versionCode();
        out.append("IP Virtual Server version ").append((version >> 16) & 0xFF).append('.')
            .append((version >> 8) & 0xFF).append('.').append(version & 0xFF)
            .append(" (size=").append(view.connTableSize()).append(")\n");
        title(out, format);
        for (final ServiceView each : format.noSort() ? view.services() : IpvsOrder.sortServices(view.services()))
        {
            service(out, each, format, false, names);
        }
        return out.toString();
    }

    /**
     * {@code ipvsadm -S [-n]}: the rules, always sorted, with no header or title.
     *
     * @param view    the state.
     * @param numeric -n.
     * @param names   name lookups without -n.
     * @return the text.
     */
    public static String save(final IpvsView view, final boolean numeric, final Names names)
    {
        final ListFormat format = numeric ? ListFormat.NUMERIC : ListFormat.DEFAULT;
        final StringBuilder out = new StringBuilder();
        for (final ServiceView each : IpvsOrder.sortServices(view.services()))
        {
            service(out, each, format, true, names);
        }
        return out.toString();
    }

    /**
     * {@code ipvsadm -L --timeout}.
     *
     * @param view the state.
     * @return the line.
     */
    public static String timeouts(final IpvsView view)
    {
        return view.timeouts().format() + "\n";
    }

    /**
     * {@code ipvsadm -L -c [-n] [--persistent-conn]}: the entries in the view's order, persistence templates
     * ({@link ConnectionView#template}) among them. jvs has no persistence engine, so no entry carries pe data and
     * every row has the six columns even under the --persistent-conn title.
     *
     * @param view   the state, with its connection entries.
     * @param format -n and --persistent-conn matter.
     * @param names  name lookups without -n.
     * @return the text.
     */
    public static String connections(final IpvsView view, final ListFormat format, final Names names)
    {
        final StringBuilder out = new StringBuilder();
        connections(view, format, names, out);
        return out.toString();
    }

    /**
     * {@link #connections(IpvsView, ListFormat, Names)}, written to {@code to} as it goes, {@link #CHUNK_CHARS} at a
     * time: a listing of millions of entries, read from the daemon's workers as it is written, is never held whole
     * as text here.
     *
     * @param to where the text goes (a PrintStream, a StringBuilder).
     * @throws UncheckedIOException when {@code to} fails.
     */
    public static void connections(final IpvsView view, final ListFormat format, final Names names,
        final Appendable to)
    {
        final StringBuilder out = new StringBuilder(CHUNK_CHARS + 256).append("IPVS connection entries\n");
        if (format.persistentConn())
        {
            out.append("pro expire ").append(left("state", 11)).append(' ').append(left("source", 18)).append(' ')
                .append(left("virtual", 18)).append(' ').append(left("destination", 18)).append(' ')
                .append(left("pe name", 16)).append(" pe_data\n");
        }
        else
        {
            out.append("pro expire ").append(left("state", 11)).append(' ').append(left("source", 18)).append(' ')
                .append(left("virtual", 18)).append(" destination\n");
        }
        for (final ConnectionView entry : view.connections())
        {
            final Protocol protocol = switch (entry.protocol())
            {
                case "TCP" -> Protocol.TCP;
                case "UDP" -> Protocol.UDP;
                case "SCTP" -> Protocol.SCTP;
                default -> null;
            };
            // The proc file gives whole seconds; print_conn splits them as %02d:%02d.
            final long seconds = Math.max(0, entry.expiresMs() / 1000);
            final String expire = two(seconds / 60) + ":" + two(seconds % 60);
            out.append(left(entry.protocol(), 3)).append(' ').append(left(expire, 6)).append(' ')
                .append(left(entry.state(), 11)).append(' ')
                .append(left(name(entry.client(), entry.clientPort(), protocol, format, names), 18)).append(' ')
                .append(left(name(entry.virtualAddress(), entry.virtualPort(), protocol, format, names), 18))
                .append(' ').append(name(entry.destination(), entry.destinationPort(), protocol, format, names))
                .append('\n');
            if (out.length() >= CHUNK_CHARS)
            {
                flush(out, to);
            }
        }
        flush(out, to);
    }

    private static void flush(final StringBuilder out, final Appendable to)
    {
        try
        {
            to.append(out);
        }
        catch (final java.io.IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        out.setLength(0);
    }

    private static String two(final long value)
    {
        return value < 10 ? "0" + value : Long.toString(value);
    }

    private static void title(final StringBuilder out, final ListFormat format)
    {
        if (format.stats())
        {
            out.append(left(TITLE_SERVICE, 33)).append(' ').append(right("Conns", 8)).append(' ')
                .append(right("InPkts", 8)).append(' ').append(right("OutPkts", 8)).append(' ')
                .append(right("InBytes", 8)).append(' ').append(right("OutBytes", 8)).append('\n').append(TITLE_SERVER);
        }
        else if (format.rate())
        {
            out.append(left(TITLE_SERVICE, 33)).append(' ').append(right("CPS", 8)).append(' ')
                .append(right("InPPS", 8)).append(' ').append(right("OutPPS", 8)).append(' ')
                .append(right("InBPS", 8)).append(' ').append(right("OutBPS", 8)).append('\n').append(TITLE_SERVER);
        }
        else if (format.thresholds())
        {
            out.append(left(TITLE_SERVICE, 33)).append(' ').append(left("Uthreshold", 10)).append(' ')
                .append(left("Lthreshold", 10)).append(' ').append(left("ActiveConn", 10)).append(' ')
                .append(left("InActConn", 10)).append('\n').append(TITLE_SERVER);
        }
        else if (format.persistentConn())
        {
            out.append(left(TITLE_SERVICE, 33)).append(' ').append(left("Weight", 9)).append(' ')
                .append(left("PersistConn", 11)).append(' ').append(left("ActiveConn", 10)).append(' ')
                .append(left("InActConn", 10)).append('\n').append(TITLE_SERVER);
        }
        else if (format.tunnelInfo())
        {
            out.append("Prot LocalAddress:Port Scheduler Flags\n")
                .append("  -> RemoteAddress:Port           Forward TunnelInfo    Weight ActiveConn InActConn\n");
        }
        else
        {
            out.append("Prot LocalAddress:Port Scheduler Flags\n")
                .append("  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n");
        }
    }

    private static void service(
        final StringBuilder out, final ServiceView service, final ListFormat format, final boolean rule,
        final Names names)
    {
        final ServiceKey key = service.key();
        final ServiceSettings settings = service.settings();
        final Protocol protocol = key.isFirewallMark() ? Protocol.TCP : key.protocol();
        final String serviceName = serviceName(key, rule, format, names);
        if (rule)
        {
            out.append("-A ").append(serviceName).append(' ');
            serviceOptions(out, key, settings);
        }
        else if (format.stats() || format.rate())
        {
            final Counters c = service.counters();
            out.append(left(serviceName, 33));
            if (format.stats())
            {
                largeNumbers(out, format, c.conns(), c.inPackets(), c.outPackets(), c.inBytes(), c.outBytes());
            }
            else
            {
                largeNumbers(out, format, c.cps(), c.inPps(), c.outPps(), c.inBps(), c.outBps());
            }
        }
        else
        {
            out.append(serviceName).append(' ').append(settings.scheduler());
            if (settings.flags().any())
            {
                out.append(" (").append(settings.flags().toListString(settings.scheduler())).append(')');
            }
            if (settings.persistent())
            {
                out.append(" persistent ").append(Integer.toUnsignedString(settings.persistenceSeconds()));
                mask(out, key, settings, " mask ");
            }
            if (settings.onePacket())
            {
                out.append(" ops");
            }
        }
        out.append('\n');
        final List<DestinationView> destinations = format.noSort() && !rule ? service.destinations() :
            IpvsOrder.sortDestinations(service.destinations());
        for (final DestinationView destination : destinations)
        {
            destination(out, serviceName, protocol, destination, format, rule, names);
        }
    }

    /**
     * A service's options as an {@code ipvsadm -S} service line writes them after the service
     * ({@code -s sh -p 300 -M 255.255.255.0 -o -b sh-fallback,sh-port}): the scheduler, then what is set of
     * persistence with its netmask when not the family's whole address, one-packet scheduling and scheduler flags.
     * Public so that whatever else shows a service in ipvsadm's words (the daemon's reload log) shows all of it,
     * written the one way.
     *
     * @param key      the service, whose family decides how a netmask is written.
     * @param settings its settings.
     * @return the options, without a leading space.
     */
    public static String serviceOptions(final ServiceKey key, final ServiceSettings settings)
    {
        final StringBuilder out = new StringBuilder();
        serviceOptions(out, key, settings);
        return out.toString();
    }

    private static void serviceOptions(final StringBuilder out, final ServiceKey key, final ServiceSettings settings)
    {
        out.append("-s ").append(settings.scheduler());
        if (settings.persistent())
        {
            out.append(" -p ").append(Integer.toUnsignedString(settings.persistenceSeconds()));
            mask(out, key, settings, " -M ");
        }
        if (settings.onePacket())
        {
            out.append(" -o");
        }
        if (settings.flags().any())
        {
            out.append(" -b ").append(settings.flags().toListString(settings.scheduler()));
        }
    }

    /**
     * A real server's options as {@code ipvsadm -S} writes them after its address: the method, the weight, and for
     * a tunnelled server its tunnel type (print_tunnel_rule writes it for every one; jvs's is ipip).
     *
     * @param method its forwarding method.
     * @param weight its weight.
     * @return e.g. {@code -m -w 1} or {@code -i -w 3 --tun-type ipip}.
     */
    public static String serverOptions(final ForwardMethod method, final int weight)
    {
        final String options = method.ipvsadmOption() + " -w " + weight;
        return method == ForwardMethod.TUN ? options + " --tun-type ipip" : options;
    }

    private static void destination(
        final StringBuilder out, final String serviceName, final Protocol protocol, final DestinationView d,
        final ListFormat format, final boolean rule, final Names names)
    {
        String name = name(d.address(), d.port(), protocol, format, names);
        if (!rule && !d.address().isV6() && name.length() > 28)
        {
            name = name.substring(0, 28);
        }
        final Counters c = d.counters();
        if (rule)
        {
            out.append("-a ").append(serviceName).append(" -r ").append(name).append(' ')
                .append(serverOptions(d.forwardMethod(), d.weight())).append('\n');
        }
        else if (format.stats())
        {
            out.append("  -> ").append(left(name, 28));
            largeNumbers(out, format, c.conns(), c.inPackets(), c.outPackets(), c.inBytes(), c.outBytes());
            out.append('\n');
        }
        else if (format.rate())
        {
            out.append("  -> ").append(left(name, 28)).append(' ').append(right(Long.toUnsignedString(c.cps()), 8))
                .append(' ').append(right(Long.toUnsignedString(c.inPps()), 8)).append(' ')
                .append(right(Long.toUnsignedString(c.outPps()), 8));
            largeNumbers(out, format, c.inBps(), c.outBps());
            out.append('\n');
        }
        else if (format.thresholds())
        {
            out.append("  -> ").append(left(name, 28)).append(' ').append(unsigned(d.upperThreshold(), 10)).append(' ')
                .append(unsigned(d.lowerThreshold(), 10)).append(' ').append(unsigned(d.activeConnections(), 10))
                .append(' ').append(unsigned(d.inactiveConnections(), 10)).append('\n');
        }
        else if (format.persistentConn())
        {
            out.append("  -> ").append(left(name, 28)).append(' ').append(unsigned(d.weight(), 9)).append(' ')
                .append(unsigned(d.persistentConnections(), 11)).append(' ')
                .append(unsigned(d.activeConnections(), 10)).append(' ')
                .append(unsigned(d.inactiveConnections(), 10)).append('\n');
        }
        else
        {
            out.append("  -> ").append(left(name, 28)).append(' ').append(left(d.forwardMethod().listingName(), 7))
                .append(' ');
            if (format.tunnelInfo())
            {
                out.append(left(d.forwardMethod() == ForwardMethod.TUN ? "ipip" : "n/a", 13)).append(' ');
            }
            out.append(left(Integer.toString(d.weight()), 6)).append(' ').append(unsigned(d.activeConnections(), 10))
                .append(' ').append(unsigned(d.inactiveConnections(), 10)).append('\n');
        }
    }

    /** svc_name of print_service_entry. */
    private static String serviceName(
        final ServiceKey key, final boolean rule, final ListFormat format, final Names names)
    {
        if (key.isFirewallMark())
        {
            // 1.31 prints the mark with %d: a mark above 2^31 comes out negative.
            if (rule)
            {
                return "-f " + key.firewallMark() + (key.v6() ? " -6" : "");
            }
            return "FWM  " + key.firewallMark() + (key.v6() ? " IPv6" : "");
        }
        final String address = name(key.address(), key.port(), key.protocol(), format, names);
        if (rule)
        {
            return key.protocol().ipvsadmOption() + " " + address;
        }
        final String name = left(key.protocol().name(), 4) + " " + address;
        return !key.v6() && name.length() > 33 ? name.substring(0, 33) : name;
    }

    private static void mask(
        final StringBuilder out, final ServiceKey key, final ServiceSettings settings, final String label)
    {
        final int prefix = settings.netmaskPrefix();
        if (!key.v6())
        {
            if (prefix != 32)
            {
                final int mask = prefix == 0 ? 0 : -1 << (32 - prefix);
                out.append(label).append(IpAddress.ofV4(mask));
            }
        }
        else if (prefix != 128)
        {
            out.append(label).append(prefix);
        }
    }

    /** addrport_to_anyname: 60 bytes at most, brackets around any address that is not IPv4. */
    static String name(
        final IpAddress address, final int port, final Protocol protocol, final ListFormat format, final Names names)
    {
        final String host;
        final String service;
        if (format.numeric())
        {
            host = ntop(address);
            service = Integer.toString(port);
        }
        else
        {
            final String hostName = names.hostName(address);
            host = hostName != null ? hostName : ntop(address);
            final String serviceName = protocol == null ? null : names.serviceName(port, protocol);
            service = serviceName != null ? serviceName : Integer.toString(port);
        }
        final String text = (address.isV6() ? "[" : "") + host + (address.isV6() ? "]" : "") + ":" + service;
        return text.length() > 59 ? text.substring(0, 59) : text;
    }

    /**
     * inet_ntop as glibc writes it: like {@link IpAddress#toString}, and an address whose first 96 bits are zero
     * and whose seventh group is not also zero is written with the last 32 bits dotted ({@code ::0.2.0.3}).
     */
    static String ntop(final IpAddress address)
    {
        if (address.isV6() && address.high() == 0 && (address.low() >>> 32) == 0 &&
            ((address.low() >>> 16) & 0xFFFF) != 0)
        {
            return "::" + IpAddress.ofV4((int)address.low());
        }
        return address.toString();
    }

    private static void largeNumbers(final StringBuilder out, final ListFormat format, final long... values)
    {
        for (final long value : values)
        {
            out.append(largeNumber(value, format.exact()));
        }
    }

    /**
     * print_largenum: nine columns; from 10^8 up, eight digits and a K, M, G or T suffix; with --exact the whole
     * number, at least nine columns and always one leading space.
     */
    static String largeNumber(final long value, final boolean exact)
    {
        final String digits = Long.toUnsignedString(value);
        if (exact)
        {
            return right(digits, digits.length() <= 8 ? 9 : digits.length() + 1);
        }
        if (Long.compareUnsigned(value, 100_000_000L) < 0)
        {
            return right(digits, 9);
        }
        if (Long.compareUnsigned(value, 1_000_000_000L) < 0)
        {
            return right(Long.toUnsignedString(Long.divideUnsigned(value, 1_000L)), 8) + "K";
        }
        if (Long.compareUnsigned(value, 100_000_000_000L) < 0)
        {
            return right(Long.toUnsignedString(Long.divideUnsigned(value, 1_000_000L)), 8) + "M";
        }
        if (Long.compareUnsigned(value, 100_000_000_000_000L) < 0)
        {
            return right(Long.toUnsignedString(Long.divideUnsigned(value, 1_000_000_000L)), 8) + "G";
        }
        return right(Long.toUnsignedString(Long.divideUnsigned(value, 1_000_000_000_000L)), 8) + "T";
    }

    private static String unsigned(final int value, final int width)
    {
        return left(Integer.toUnsignedString(value), width);
    }

    /** %-Ns. */
    static String left(final String text, final int width)
    {
        return text.length() >= width ? text : text + " ".repeat(width - text.length());
    }

    /** %Ns. */
    static String right(final String text, final int width)
    {
        return text.length() >= width ? text : " ".repeat(width - text.length()) + text;
    }
}
