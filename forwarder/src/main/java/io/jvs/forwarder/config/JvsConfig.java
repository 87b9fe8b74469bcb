package io.jvs.forwarder.config;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.MarkRule;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleException;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * A jvs configuration: what {@code jvs run --config} and {@code jvs replay --config} read, one statement a line,
 * {@code #} comments, parsed by one parser ({@link #load}, {@link #parse}). Lines that start with an ipvsadm
 * option ({@code -A}, {@code -a}, {@code --set}, ...) are rules in {@code ipvsadm -S -n} syntax and
 * {@code rules FILE} includes a file of them; the other statements describe the box:
 * <pre>
 * interface IFNAME [port afxdp|afpacket] [queues N] [xdp-mode drv|skb] [zero-copy auto|on|off]
 * workers N [cpus LIST]
 * idle adaptive|spin|yield|backoff|wait
 * connections N
 * control PATH [group NAME]
 * vip-arp on|off
 * offload auto|on|off
 * mark N [in IFNAME] [src PREFIX] [dst PREFIX] [proto P] [dport N]
 * port N mac MAC [mtu N] [ipv4 ADDRESS] [ipv6 ADDRESS]
 * gateway mac MAC [port N] [family ipv4|ipv6|both]
 * neighbour ADDRESS mac MAC [port N]
 * set NAME VALUE
 * timeout tcp N tcpfin N udp N
 * </pre>
 * This value holds what the file says and the defaults for what it leaves out; whether a consumer supports a
 * statement is the consumer's business (replay, which has no interfaces, ignores {@code interface}).
 *
 * @param source       the file it came from, as messages name it ("defaults" for {@link #defaults()}).
 * @param interfaces   the {@code interface} statements in order: interface i is port i.
 * @param workers      the {@code workers} count, or 0 when not given (see {@link #workerCount}).
 * @param cpus         the CPU each worker is pinned to, in worker order, or empty for no pinning.
 * @param idle         what a worker does when its ports have nothing; {@link IdleMode#ADAPTIVE} by default.
 * @param connections  each worker's connection table capacity, for each address family;
 *                     {@link #DEFAULT_CONNECTIONS} by default.
 * @param control      the control socket; {@link #DEFAULT_CONTROL} by default.
 * @param controlGroup the group the control socket is given to, or null to leave it the daemon's.
 * @param vipArp       whether jvs answers ARP requests and neighbour solicitations for its virtual addresses
 *                     (off by default: the VIPs are on the box's {@code lo}, as with IPVS).
 * @param offload      whether established IPv4 NAT and DR connections are forwarded by the AF_XDP ports' XDP
 *                     program rather than by the workers (XdpFlowTable); {@link OffloadMode#AUTO} by default.
 * @param markRules    the {@code mark} statements in order (first match wins); {@code in} names are resolved
 *                     to interface indexes.
 * @param ports        the {@code port} statements, by index (not necessarily every port).
 * @param neighbours   the {@code neighbour} statements.
 * @param gatewayV4    the IPv4 {@code gateway}, or null when not given.
 * @param gatewayV6    the IPv6 {@code gateway}, or null when not given.
 * @param settings     the {@code set} switches over the kernel's defaults.
 * @param timeouts     the {@code timeout} statement, 0 for each timeout not given.
 * @param expirations  the lblc/lblcr {@code set} values ({@code lblc_expiration}, {@code lblcr_expiration}), the
 *                     kernel's 24 hours for each not given.
 * @param rules        the ipvsadm rules, in order: the file's own lines and the included files' in place.
 * @param servicesAt   {@code file:line} of the first rule line or {@code rules} statement, or null when the
 *                     file gives no services.
 * @param includes     the files its {@code rules} statements read, in order (inputs, for a tool that must never
 *                     write over one).
 * @param workersAt    {@code file:line} of the {@code workers} statement, or null when the file gives none.
 * @param controlAt    {@code file:line} of the {@code control} statement, or null when the file gives none.
 */
public record JvsConfig(
    String source,
    List<InterfaceConfig> interfaces,
    int workers,
    List<Integer> cpus,
    IdleMode idle,
    int connections,
    Path control,
    String controlGroup,
    boolean vipArp,
    OffloadMode offload,
    List<MarkRule> markRules,
    List<Topology.Port> ports,
    Map<IpAddress, Topology.Neighbour> neighbours,
    Topology.Neighbour gatewayV4,
    Topology.Neighbour gatewayV6,
    DataPlaneSettings settings,
    Timeouts timeouts,
    Expirations expirations,
    List<ServiceRule> rules,
    String servicesAt,
    List<Path> includes,
    String workersAt,
    String controlAt)
{
    /** The control socket when the file names none. */
    public static final Path DEFAULT_CONTROL = Path.of("/run/jvs/jvs.sock");
    /** Each worker's connection table capacity for each family when the file says nothing (replay's too). */
    public static final int DEFAULT_CONNECTIONS = 1 << 20;
    /** The most workers a {@code workers} statement may ask for. */
    public static final int MAX_WORKERS = 256;
    /** The most receive queues an {@code interface} statement may take. */
    public static final int MAX_QUEUES = 256;

    /**
     * The expiration sysctls of lblc and lblcr, which {@code set lblc_expiration} and {@code set lblcr_expiration}
     * give: how long an idle entry stays in their tables (ip_vs_lblc_check_expire) and, for lblcr, how long a replica
     * set stays unchanged before it sheds its busiest member.
     *
     * @param lblcSeconds  lblc_expiration.
     * @param lblcrSeconds lblcr_expiration.
     */
    public record Expirations(int lblcSeconds, int lblcrSeconds)
    {
        /** The kernel's default for both: 24 hours. */
        public static final int DEFAULT_SECONDS = (int)(SchedulerSettings.DEFAULT_EXPIRATION_NS / 1_000_000_000L);
        /** The most either takes: the kernel keeps them in jiffies in an int, at up to 1000 a second. */
        public static final int MAX_SECONDS = Integer.MAX_VALUE / 1000;
    }

    /**
     * @param workers the daemon's (or replay's) worker count.
     * @return what every service's scheduler is made with: the workers and the expirations of this file.
     */
    public SchedulerSettings schedulerSettings(final int workers)
    {
        return new SchedulerSettings(SchedulerFlags.NONE, workers, expirations.lblcSeconds() * 1_000_000_000L,
            expirations.lblcrSeconds() * 1_000_000_000L);
    }

    /**
     * The {@code timeout} statement, and the {@code --set} rules, which say the same: the daemon and replay take their
     * timeouts from here alone.
     *
     * @param tcpSeconds    established TCP, or 0 for the default.
     * @param tcpFinSeconds closing TCP, or 0 for the default.
     * @param udpSeconds    UDP, or 0 for the default.
     */
    public record Timeouts(int tcpSeconds, int tcpFinSeconds, int udpSeconds)
    {
        /**
         * @param set an {@code ipvsadm --set} rule (0 for a timeout it leaves as it is).
         * @return these timeouts with the rule's added.
         * @throws IllegalArgumentException when both give the same timeout.
         */
        public Timeouts with(final RuleCommand.SetTimeouts set)
        {
            return new Timeouts(either("tcp", tcpSeconds, set.tcpSeconds()),
                either("tcpfin", tcpFinSeconds, set.tcpFinSeconds()), either("udp", udpSeconds, set.udpSeconds()));
        }

        private static int either(final String name, final int given, final int set)
        {
            if (given != 0 && set != 0)
            {
                throw new IllegalArgumentException("--set: the " + name + " timeout is given twice (here and in a " +
                    "timeout statement or another --set)");
            }
            return given != 0 ? given : set;
        }
    }

    public JvsConfig
    {
        interfaces = List.copyOf(interfaces);
        cpus = List.copyOf(cpus);
        markRules = List.copyOf(markRules);
        ports = List.copyOf(ports);
        neighbours = Collections.unmodifiableMap(new LinkedHashMap<>(neighbours));
        rules = List.copyOf(rules);
        includes = List.copyOf(includes);
        if (!cpus.isEmpty() && cpus.size() != workers)
        {
            throw new IllegalArgumentException(cpus.size() + " CPUs for " + workers + " workers");
        }
    }

    /**
     * @return the configuration of an empty file.
     */
    public static JvsConfig defaults()
    {
        try
        {
            return parse("defaults", List.of(), Path.of(""));
        }
        catch (final RuleException ex)
        {
            throw new IllegalStateException("the empty configuration is refused: " + ex.getMessage(), ex);
        }
    }

    /**
     * Reads a configuration file; {@code rules} statements are relative to its directory.
     *
     * @throws RuleException naming the file (or included rules file) and line of the first statement refused,
     *                       and why.
     * @throws IOException   when the file itself cannot be read.
     */
    public static JvsConfig load(final Path file) throws IOException, RuleException
    {
        final Path parent = file.getParent();
        if (isSpecialFile(file))
        {
            throw new FileSystemException(file.toString(), null, NOT_A_REGULAR_FILE);
        }
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final CharacterCodingException ex)
        {
            throw new RuleException(file.toString(), firstLineNotUtf8(Files.readAllBytes(file)), "not UTF-8 text");
        }
        return parse(file.toString(), lines, parent == null ? Path.of("") : parent);
    }

    /**
     * Why a FIFO, a device or a socket is refused as a configuration or rules file: the daemon reads it again on
     * every reload, on its conductor's thread, where a FIFO without a writer blocks the open for ever (and with it
     * the control socket and the stop) and a device such as /dev/zero never ends.
     */
    static final String NOT_A_REGULAR_FILE = "not a regular file (a FIFO or a device): name the file itself";

    /** @return true when the path exists and is neither a regular file nor a directory (symbolic links followed). */
    static boolean isSpecialFile(final Path path)
    {
        return Files.exists(path) && !Files.isRegularFile(path) && !Files.isDirectory(path);
    }

    /** The number of the first line that does not decode as UTF-8 (1 when none is found on its own). */
    private static int firstLineNotUtf8(final byte[] text)
    {
        int line = 1;
        int start = 0;
        for (int i = 0; i <= text.length; i++)
        {
            if (i == text.length || text[i] == '\n')
            {
                try
                {
                    StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(text, start, i - start));
                }
                catch (final CharacterCodingException ex)
                {
                    return line;
                }
                line++;
                start = i + 1;
            }
        }
        return 1;
    }

    /**
     * Parses a configuration and checks its rules by applying them to a scratch service table, so that a
     * configuration that parses is one a daemon can start with.
     *
     * @param source  a label for messages, usually the file name.
     * @param lines   the statements.
     * @param baseDir what the files of {@code rules} statements are relative to.
     * @throws RuleException naming source and line of the first statement refused, and why; for a rule of an
     *                       included file, that file and line.
     */
    public static JvsConfig parse(final String source, final List<String> lines, final Path baseDir)
        throws RuleException
    {
        final JvsConfigParser parser = new JvsConfigParser(source, baseDir);
        // A rule's refusal shows only once the rules before it are applied, after the lines that follow it are
        // read: the first refused line of either kind is the one reported.
        for (int i = 0; i < lines.size(); i++)
        {
            try
            {
                parser.line(i + 1, lines.get(i));
            }
            catch (final RuleException refused)
            {
                parser.checkRulesSoFar();
                throw refused;
            }
        }
        final JvsConfig config;
        try
        {
            config = parser.build();
        }
        catch (final RuleException refused)
        {
            parser.checkRulesBefore(refused.line());
            throw refused;
        }
        config.serviceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        return config;
    }

    /**
     * @return true when the file gives services: rule lines, or a {@code rules} statement (even of an empty
     *         file).
     */
    public boolean definesServices()
    {
        return servicesAt != null;
    }

    /**
     * Applies the rules in order.
     *
     * @param table the table; on a refusal it holds the rules before the refused one, so give a fresh table
     *              when a running one must stay untouched (or use {@link #serviceTable}).
     * @throws RuleException naming the file and line of the first rule the table refuses, with ipvsadm's reason.
     */
    public void applyRules(final ServiceTable table) throws RuleException
    {
        for (final ServiceRule rule : rules)
        {
            try
            {
                rule.command().applyTo(table);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RuleException(rule.source(), rule.line(), ex.getMessage());
            }
        }
    }

    /**
     * @param settings the schedulers' settings (worker count, flags).
     * @return a new table holding the configuration's services.
     * @throws RuleException naming the file and line of a rule the table refuses.
     */
    public ServiceTable serviceTable(final SchedulerSettings settings) throws RuleException
    {
        final ServiceTable table = new ServiceTable(settings);
        applyRules(table);
        return table;
    }

    /**
     * @param availableProcessors the CPUs the daemon may use.
     * @param deviceQueues        the receive queues a device (by name) has, for an interface that leaves out
     *                            {@code queues}.
     * @return the {@code workers} count, or when not given one worker per receive queue (the largest
     *         {@code queues} of any interface, by default the device's with port afxdp: worker q serves queue q
     *         of every interface), at most one per CPU, at least one.
     */
    public int workerCount(final int availableProcessors, final ToIntFunction<String> deviceQueues)
    {
        if (workers > 0)
        {
            return workers;
        }
        int queues = 1;
        for (final InterfaceConfig face : interfaces)
        {
            queues = Math.max(queues, face.queues(face.queuesGiven() ? 0 : deviceQueues.applyAsInt(face.name())));
        }
        return Math.max(1, Math.min(queues, availableProcessors));
    }

    /**
     * @param name a device name.
     * @return the port index of the interface statement naming it, or -1.
     */
    public int interfaceIndex(final String name)
    {
        for (int i = 0; i < interfaces.size(); i++)
        {
            if (interfaces.get(i).name().equals(name))
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * @return how many ports the statements make: one per interface; without interfaces as many as the
     *         {@code port} statements number (they are numbered from 0 without gaps), at least one.
     */
    public int portCount()
    {
        if (!interfaces.isEmpty())
        {
            return interfaces.size();
        }
        return Math.max(1, ports.size());
    }

    /**
     * The {@code set} switches, by the names the statement takes, so that what a reload changed can be told in the
     * file's own words.
     *
     * @return each switch's value in these settings (1 or 0 for on or off), in the order the statement's message
     *         lists them.
     */
    public static Map<String, Integer> switches(final DataPlaneSettings settings)
    {
        final Map<String, Integer> switches = new LinkedHashMap<>();
        switches.put("pass_unmatched", settings.passUnmatched() ? 1 : 0);
        switches.put("allow_ip_options", settings.allowIpOptions() ? 1 : 0);
        switches.put("allow_fragments", settings.allowFragments() ? 1 : 0);
        switches.put("expire_nodest_conn", settings.expireNodestConn() ? 1 : 0);
        switches.put("expire_quiescent_template", settings.expireQuiescentTemplate() ? 1 : 0);
        switches.put("sloppy_tcp", settings.sloppyTcp() ? 1 : 0);
        switches.put("conn_reuse_mode", settings.connReuse() ? 1 : 0);
        switches.put("active_established_only", settings.activeEstablishedOnly() ? 1 : 0);
        switches.put("clamp_mss", settings.clampMss() ? 1 : 0);
        switches.put("pmtu_disc", settings.pmtuDisc() ? 1 : 0);
        switches.put("schedule_icmp", settings.scheduleIcmp() ? 1 : 0);
        switches.put("icmp_replies_per_second", settings.icmpRepliesPerSecond());
        return switches;
    }

    /**
     * @return the timeouts these statements ask for, as the pipeline keeps them (a new object each call).
     */
    public ConnectionTimeouts connectionTimeouts()
    {
        final ConnectionTimeouts result = new ConnectionTimeouts();
        result.set(timeouts.tcpSeconds(), timeouts.tcpFinSeconds(), timeouts.udpSeconds());
        return result;
    }
}
