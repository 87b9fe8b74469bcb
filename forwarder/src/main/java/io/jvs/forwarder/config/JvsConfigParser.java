package io.jvs.forwarder.config;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.MarkRule;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;
import io.jvs.forwarder.port.xdp.XdpBindMode;
import io.jvs.nativebindings.bpf.XdpMode;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The statements of a {@link JvsConfig} file, one call per line. A line's own refusal is a
 * {@link RuleException} naming the file and line; what only the whole file can tell (a port a neighbour is on,
 * the interface a mark names) is checked in {@link #build()} and refused at the line that refers to it.
 */
final class JvsConfigParser
{
    /** Every statement word, for the unknown-statement message and for included rules files. */
    static final List<String> STATEMENTS = List.of("interface", "workers", "idle", "connections", "control",
        "vip-arp", "offload", "mark", "port", "gateway", "neighbour", "set", "timeout", "rules");
    /** The bytes of a unix socket path: {@code sun_path} of {@code struct sockaddr_un} less its NUL. */
    static final int MAX_SOCKET_PATH = 107;
    /** IFNAMSIZ less the NUL, as the kernel's dev_valid_name() checks a device name. */
    private static final int MAX_DEVICE_NAME = 15;

    /** A mark statement until the interface it names is known. */
    private record PendingMark(MarkRule rule, String in, int line)
    {
    }

    private final String source;
    private final Path baseDir;

    private final List<InterfaceConfig> interfaces = new ArrayList<>();
    private final Map<String, Integer> singletons = new HashMap<>();
    private int workers;
    private List<Integer> cpus = List.of();
    private IdleMode idle = IdleMode.ADAPTIVE;
    private int connections = JvsConfig.DEFAULT_CONNECTIONS;
    private Path control = JvsConfig.DEFAULT_CONTROL;
    private String controlGroup;
    private boolean vipArp;
    private OffloadMode offload = OffloadMode.AUTO;
    private final List<PendingMark> marks = new ArrayList<>();

    private final Map<Integer, Topology.Port> ports = new TreeMap<>();
    private final Map<Integer, Integer> portLines = new HashMap<>();
    private final Map<IpAddress, Topology.Neighbour> neighbours = new LinkedHashMap<>();
    private final Map<IpAddress, Integer> neighbourLines = new HashMap<>();
    private Topology.Neighbour gatewayV4;
    private Topology.Neighbour gatewayV6;
    private int gatewayV4Line;
    private int gatewayV6Line;
    private final int[] timeouts = new int[3];

    private boolean passUnmatched;
    private boolean allowIpOptions;
    private boolean allowFragments;
    private boolean expireNodestConn;
    private boolean expireQuiescentTemplate;
    private boolean sloppyTcp;
    private boolean connReuse;
    private boolean activeEstablishedOnly;
    private int icmpRepliesPerSecond;
    private boolean clampMss;
    private boolean pmtuDisc;
    private boolean scheduleIcmp;
    private int lblcExpiration = JvsConfig.Expirations.DEFAULT_SECONDS;
    private int lblcrExpiration = JvsConfig.Expirations.DEFAULT_SECONDS;
    private final int sweepSlotsPerBurst;

    private final List<ServiceRule> rules = new ArrayList<>();
    /** For each rule, the line of this file that gave it (its own, or its {@code rules} statement's). */
    private final List<Integer> ruleStatementLines = new ArrayList<>();
    private final List<Path> includes = new ArrayList<>();
    private String servicesAt;
    private String workersAt;
    private String controlAt;
    private int line;

    JvsConfigParser(final String source, final Path baseDir)
    {
        this.source = source;
        this.baseDir = baseDir == null ? Path.of("") : baseDir;
        final DataPlaneSettings defaults = DataPlaneSettings.defaults();
        passUnmatched = defaults.passUnmatched();
        allowIpOptions = defaults.allowIpOptions();
        allowFragments = defaults.allowFragments();
        expireNodestConn = defaults.expireNodestConn();
        expireQuiescentTemplate = defaults.expireQuiescentTemplate();
        sloppyTcp = defaults.sloppyTcp();
        connReuse = defaults.connReuse();
        activeEstablishedOnly = defaults.activeEstablishedOnly();
        icmpRepliesPerSecond = defaults.icmpRepliesPerSecond();
        clampMss = defaults.clampMss();
        pmtuDisc = defaults.pmtuDisc();
        scheduleIcmp = defaults.scheduleIcmp();
        sweepSlotsPerBurst = defaults.sweepSlotsPerBurst();
    }

    /**
     * @param number the 1-based line number.
     * @param raw    the line as written.
     * @throws RuleException naming the file and line, and why the statement is refused.
     */
    void line(final int number, final String raw) throws RuleException
    {
        line = number;
        final int hash = raw.indexOf('#');
        final String text = (hash >= 0 ? raw.substring(0, hash) : raw).trim();
        if (text.isEmpty())
        {
            return;
        }
        final String[] words = text.split("\\s+");
        final String keyword = words[0].toLowerCase(Locale.ROOT);
        if (keyword.startsWith("-") || keyword.equals("ipvsadm"))
        {
            rule(text);
            return;
        }
        final String[] lower = text.toLowerCase(Locale.ROOT).split("\\s+");
        try
        {
            switch (keyword)
            {
                case "interface" -> face(words);
                case "workers" -> workers(words);
                case "idle" -> idle(lower);
                case "connections" -> connections(lower);
                case "control" -> control(words);
                case "vip-arp" -> vipArp(lower);
                case "offload" -> offload(lower);
                case "mark" -> mark(words);
                case "rules" -> include(words);
                case "port" -> port(lower);
                case "gateway" -> gateway(lower);
                case "neighbour", "neighbor" -> neighbour(lower);
                case "set" -> set(lower);
                case "timeout" -> timeout(lower);
                default -> throw new IllegalArgumentException("unknown statement \"" + words[0] + "\" (" +
                    String.join(", ", STATEMENTS) + ", or an ipvsadm rule: -A, -E, -D, -C, -a, -e, -d, --set)");
            }
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RuleException(source, number, ex.getMessage());
        }
    }

    /**
     * @return the configuration, once every line is in.
     * @throws RuleException at the line of a statement that refers to a port or interface no statement makes.
     */
    JvsConfig build() throws RuleException
    {
        if (!interfaces.isEmpty())
        {
            for (final Topology.Port port : ports.values())
            {
                if (port.index() >= interfaces.size())
                {
                    final int count = interfaces.size();
                    throw new RuleException(source, portLines.get(port.index()), "port " + port.index() +
                        ": no interface statement makes port " + port.index() + " (" + count +
                        (count == 1 ? " interface" : " interfaces") + ": ports 0.." + (count - 1) + ")");
                }
            }
        }
        else
        {
            int expected = 0;
            for (final Topology.Port port : ports.values())
            {
                if (port.index() != expected)
                {
                    throw new RuleException(source, portLines.get(port.index()), "port " + port.index() +
                        ": ports are numbered from 0 without gaps, and port " + expected + " is not defined");
                }
                expected++;
            }
        }
        final int portCount = interfaces.isEmpty() ? Math.max(1, ports.size()) : interfaces.size();
        for (final Map.Entry<IpAddress, Topology.Neighbour> entry : neighbours.entrySet())
        {
            if (entry.getValue().port() >= portCount)
            {
                throw new RuleException(source, neighbourLines.get(entry.getKey()), "neighbour " + entry.getKey() +
                    " is on port " + entry.getValue().port() + ", which is not defined");
            }
        }
        if (gatewayV4 != null && gatewayV4.port() >= portCount)
        {
            throw new RuleException(source, gatewayV4Line, "the gateway is on a port that is not defined");
        }
        if (gatewayV6 != null && gatewayV6.port() >= portCount)
        {
            throw new RuleException(source, gatewayV6Line, "the gateway is on a port that is not defined");
        }
        final List<MarkRule> markRules = new ArrayList<>();
        for (final PendingMark pending : marks)
        {
            final MarkRule rule = pending.rule();
            int port = MarkRule.ANY_PORT;
            if (pending.in() != null)
            {
                port = indexOf(pending.in());
                if (port < 0)
                {
                    throw new RuleException(source, pending.line(), "mark " + Integer.toUnsignedString(rule.mark()) +
                        ": in " + pending.in() + ": no interface statement names " + pending.in() +
                        interfaceNames());
                }
            }
            markRules.add(new MarkRule(rule.mark(), port, rule.source(), rule.destination(), rule.protocol(),
                rule.destinationPort()));
        }
        final DataPlaneSettings settings = new DataPlaneSettings(passUnmatched, allowIpOptions, allowFragments,
            expireNodestConn, expireQuiescentTemplate, sloppyTcp, connReuse, activeEstablishedOnly,
            icmpRepliesPerSecond, clampMss, sweepSlotsPerBurst, vipArp, pmtuDisc, scheduleIcmp);
        return new JvsConfig(source, interfaces, workers, cpus, idle, connections, control, controlGroup, vipArp,
            offload, markRules, List.copyOf(ports.values()), neighbours, gatewayV4, gatewayV6, settings,
            new JvsConfig.Timeouts(timeouts[0], timeouts[1], timeouts[2]),
            new JvsConfig.Expirations(lblcExpiration, lblcrExpiration), rules, servicesAt, includes, workersAt,
            controlAt);
    }

    private void rule(final String text) throws RuleException
    {
        final RuleCommand command;
        try
        {
            command = RuleParser.parse(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RuleException(source, line, ex.getMessage());
        }
        if (command != null)
        {
            givesServices();
            add(new ServiceRule(source, line, text, command));
        }
    }

    /**
     * A rule for the service table, or, for {@code --set}, the {@code timeout} statement it is: the daemon and replay
     * take their timeouts from that statement alone, so a {@code --set} line kept among the rules would be read and
     * never used.
     */
    private void add(final ServiceRule rule) throws RuleException
    {
        if (rule.command() instanceof final RuleCommand.SetTimeouts set)
        {
            final JvsConfig.Timeouts merged;
            try
            {
                merged = new JvsConfig.Timeouts(timeouts[0], timeouts[1], timeouts[2]).with(set);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RuleException(rule.source(), rule.line(), ex.getMessage());
            }
            timeouts[0] = merged.tcpSeconds();
            timeouts[1] = merged.tcpFinSeconds();
            timeouts[2] = merged.udpSeconds();
            return;
        }
        rules.add(rule);
        ruleStatementLines.add(line);
    }

    /**
     * Applies, to a scratch table, every rule read so far: called when a line is refused, so that a rule before it
     * that the table would refuse is reported first, as the first statement refused.
     *
     * @throws RuleException naming the file and line of the first such rule the table refuses.
     */
    void checkRulesSoFar() throws RuleException
    {
        checkRulesBefore(Integer.MAX_VALUE);
    }

    /**
     * As {@link #checkRulesSoFar}, for the rules given by the lines of this file before {@code statementLine}
     * (a line {@link #build} refuses).
     *
     * @throws RuleException naming the file and line of the first such rule the table refuses.
     */
    void checkRulesBefore(final int statementLine) throws RuleException
    {
        final ServiceTable scratch = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        for (int i = 0; i < rules.size() && ruleStatementLines.get(i) < statementLine; i++)
        {
            final ServiceRule rule = rules.get(i);
            try
            {
                rule.command().applyTo(scratch);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RuleException(rule.source(), rule.line(), ex.getMessage());
            }
        }
    }

    private void include(final String[] words) throws RuleException
    {
        if (words.length != 2)
        {
            throw new IllegalArgumentException("rules: needs one file name (no spaces), e.g. rules farm.rules");
        }
        final Path path = baseDir.resolve(words[1]);
        includes.add(path);
        final String label = path.toString();
        if (JvsConfig.isSpecialFile(path))
        {
            throw new IllegalArgumentException("rules " + words[1] + ": " + label + ": " + JvsConfig.NOT_A_REGULAR_FILE);
        }
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(path, StandardCharsets.UTF_8);
        }
        catch (final NoSuchFileException ex)
        {
            throw new IllegalArgumentException("rules " + words[1] + ": cannot read " + label + ": no such file");
        }
        catch (final AccessDeniedException ex)
        {
            throw new IllegalArgumentException("rules " + words[1] + ": cannot read " + label + ": permission denied");
        }
        catch (final MalformedInputException ex)
        {
            throw new IllegalArgumentException("rules " + words[1] + ": " + label + " is not UTF-8 text");
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("rules " + words[1] + ": cannot read " + label + ": " + ex.getMessage());
        }
        givesServices();
        for (int i = 0; i < lines.size(); i++)
        {
            final String text = lines.get(i).trim();
            final String first = text.isEmpty() ? "" : text.split("\\s+")[0].toLowerCase(Locale.ROOT);
            if (first.equals("rules"))
            {
                throw new RuleException(label, i + 1, "rules statements do not nest: an included rules file holds " +
                    "ipvsadm rules only");
            }
            if (STATEMENTS.contains(first) || first.equals("neighbor"))
            {
                throw new RuleException(label, i + 1, "an included rules file holds ipvsadm rules only, not \"" +
                    first + "\" statements (they go in " + source + ")");
            }
        }
        final List<RulesFile.Rule> included = new ArrayList<>();
        try
        {
            RulesFile.parseInto(label, lines, included);
        }
        finally
        {
            // Those before a refused line too: checkRulesSoFar reports one of them the table refuses first.
            for (final RulesFile.Rule rule : included)
            {
                add(new ServiceRule(label, rule.line(), rule.text(), rule.command()));
            }
        }
    }

    private void givesServices()
    {
        if (servicesAt == null)
        {
            servicesAt = source + ":" + line;
        }
    }

    private void once(final String statement)
    {
        final Integer earlier = singletons.putIfAbsent(statement, line);
        if (earlier != null)
        {
            throw new IllegalArgumentException(statement + " is already given on line " + earlier);
        }
    }

    private void face(final String[] words)
    {
        if (words.length < 2)
        {
            throw new IllegalArgumentException("interface: needs a device name, e.g. interface eth0 port afxdp " +
                "queues 2");
        }
        final String name = words[1];
        final String what = "interface " + name;
        deviceName(what, name);
        for (final InterfaceConfig face : interfaces)
        {
            if (face.name().equals(name))
            {
                throw new IllegalArgumentException(what + " is already defined on line " + face.line());
            }
        }
        PortKind kind = PortKind.AFXDP;
        int queues = InterfaceConfig.DEVICE_QUEUES;
        XdpMode xdpMode = XdpMode.DRV;
        XdpBindMode bindMode = XdpBindMode.AUTO;
        final Set<String> given = new HashSet<>();
        for (int i = 2; i < words.length; i += 2)
        {
            final String option = words[i].toLowerCase(Locale.ROOT);
            final String value = value(what, words, i).toLowerCase(Locale.ROOT);
            if (!given.add(option))
            {
                throw new IllegalArgumentException(what + ": " + option + " is given twice");
            }
            switch (option)
            {
                case "port" -> kind = switch (value)
                {
                    case "afxdp" -> PortKind.AFXDP;
                    case "afpacket" -> PortKind.AFPACKET;
                    default -> throw new IllegalArgumentException(what + ": port is afxdp or afpacket, not \"" +
                        words[i + 1] + "\"");
                };
                case "queues" -> queues = integer(what, words, i + 1, "queues", 1, JvsConfig.MAX_QUEUES);
                case "xdp-mode" -> xdpMode = switch (value)
                {
                    case "drv" -> XdpMode.DRV;
                    case "skb" -> XdpMode.SKB;
                    default -> throw new IllegalArgumentException(what + ": xdp-mode is drv or skb, not \"" +
                        words[i + 1] + "\"");
                };
                case "zero-copy" -> bindMode = switch (value)
                {
                    case "auto" -> XdpBindMode.AUTO;
                    case "on" -> XdpBindMode.ZEROCOPY;
                    case "off" -> XdpBindMode.COPY;
                    default -> throw new IllegalArgumentException(what + ": zero-copy is auto, on or off, not \"" +
                        words[i + 1] + "\"");
                };
                default -> throw new IllegalArgumentException(what + ": unknown option \"" + words[i] +
                    "\" (port, queues, xdp-mode, zero-copy)");
            }
        }
        if (kind == PortKind.AFPACKET && (given.contains("xdp-mode") || given.contains("zero-copy")))
        {
            throw new IllegalArgumentException(what + ": xdp-mode and zero-copy are for port afxdp, not afpacket");
        }
        interfaces.add(new InterfaceConfig(name, kind, queues, xdpMode, bindMode, line));
    }

    /** The checks of the kernel's dev_valid_name(), so a name the kernel could never have is refused here. */
    private static void deviceName(final String what, final String name)
    {
        if (name.length() > MAX_DEVICE_NAME)
        {
            throw new IllegalArgumentException(what + ": a device name has at most " + MAX_DEVICE_NAME +
                " characters, not " + name.length());
        }
        if (name.equals(".") || name.equals("..") || name.indexOf('/') >= 0 || name.indexOf(':') >= 0)
        {
            throw new IllegalArgumentException(what + ": not a device name (\".\", \"..\", '/' and ':' are not " +
                "allowed)");
        }
    }

    private void workers(final String[] words)
    {
        once("workers");
        if (words.length < 2)
        {
            throw new IllegalArgumentException("workers: needs a count, e.g. workers 4 cpus 0-3");
        }
        final int count = integer("workers", words, 1, "the number of workers", 1, JvsConfig.MAX_WORKERS);
        List<Integer> list = List.of();
        for (int i = 2; i < words.length; i += 2)
        {
            final String value = value("workers", words, i);
            if (!words[i].equalsIgnoreCase("cpus") || !list.isEmpty())
            {
                throw new IllegalArgumentException(words[i].equalsIgnoreCase("cpus") ? "workers: cpus is given twice" :
                    "workers: unknown option \"" + words[i] + "\" (cpus)");
            }
            try
            {
                list = CpuList.parse(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("workers: " + ex.getMessage(), ex);
            }
        }
        if (!list.isEmpty() && list.size() != count)
        {
            throw new IllegalArgumentException("workers " + count + ": cpus " + words[3] + " names " + list.size() +
                (list.size() == 1 ? " CPU" : " CPUs") + "; give one CPU a worker");
        }
        workers = count;
        cpus = list;
        workersAt = source + ":" + line;
    }

    private void idle(final String[] words)
    {
        once("idle");
        if (words.length != 2)
        {
            throw new IllegalArgumentException("idle: needs one of adaptive, spin, yield, backoff, wait");
        }
        for (final IdleMode mode : IdleMode.values())
        {
            if (mode.word().equals(words[1]))
            {
                idle = mode;
                return;
            }
        }
        throw new IllegalArgumentException("idle: the mode is adaptive, spin, yield, backoff or wait, not \"" +
            words[1] + "\"");
    }

    private void connections(final String[] words)
    {
        once("connections");
        if (words.length != 2)
        {
            throw new IllegalArgumentException("connections: needs one number, the table capacity per worker and " +
                "family, e.g. connections 1048576");
        }
        connections = integer("connections", words, 1, "the capacity", 1024, ConnectionTable.MAX_CAPACITY);
    }

    private void control(final String[] words)
    {
        once("control");
        if (words.length != 2 && words.length != 4)
        {
            throw new IllegalArgumentException("control: needs the socket's path, e.g. control /run/jvs/jvs.sock " +
                "[group jvs]");
        }
        final String path = words[1];
        if (!path.startsWith("/"))
        {
            throw new IllegalArgumentException("control: the socket path must be absolute, not \"" + path + "\"");
        }
        final int bytes = path.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_SOCKET_PATH)
        {
            throw new IllegalArgumentException("control: the socket path is " + bytes + " bytes; a unix socket " +
                "path holds at most " + MAX_SOCKET_PATH);
        }
        if (words.length == 4)
        {
            if (!words[2].equalsIgnoreCase("group"))
            {
                throw new IllegalArgumentException("control: unknown option \"" + words[2] + "\" (group)");
            }
            controlGroup = words[3];
        }
        control = Path.of(path);
        controlAt = source + ":" + line;
    }

    private void vipArp(final String[] words)
    {
        once("vip-arp");
        if (words.length != 2 || !(words[1].equals("on") || words[1].equals("off")))
        {
            throw new IllegalArgumentException("vip-arp: needs on or off" +
                (words.length == 2 ? ", not \"" + words[1] + "\"" : ""));
        }
        vipArp = words[1].equals("on");
    }

    private void offload(final String[] words)
    {
        once("offload");
        for (final OffloadMode mode : OffloadMode.values())
        {
            if (words.length == 2 && mode.word().equals(words[1]))
            {
                offload = mode;
                return;
            }
        }
        throw new IllegalArgumentException("offload: needs auto, on or off" +
            (words.length == 2 ? ", not \"" + words[1] + "\"" : ""));
    }

    private void mark(final String[] words)
    {
        if (words.length < 2)
        {
            throw new IllegalArgumentException("mark: needs a mark, e.g. mark 1 dst 10.0.0.100 proto tcp dport 80");
        }
        final int mark = FirewallMarks.parse("mark", words[1]);
        final String what = "mark " + Integer.toUnsignedString(mark);
        String in = null;
        IpPrefix src = null;
        IpPrefix dst = null;
        int protocol = 0;
        int dport = 0;
        final Set<String> given = new HashSet<>();
        for (int i = 2; i < words.length; i += 2)
        {
            final String option = words[i].toLowerCase(Locale.ROOT);
            final String value = value(what, words, i);
            if (!given.add(option))
            {
                throw new IllegalArgumentException(what + ": " + option + " is given twice");
            }
            switch (option)
            {
                case "in" -> in = value;
                case "src" -> src = prefix(what, option, value);
                case "dst" -> dst = prefix(what, option, value);
                case "proto" -> protocol = protocol(what, value);
                case "dport" -> dport = integer(what, words, i + 1, "dport", 1, 65535);
                default -> throw new IllegalArgumentException(what + ": unknown option \"" + words[i] +
                    "\" (in, src, dst, proto, dport)");
            }
        }
        if (dport != 0 && protocol != 6 && protocol != 17 && protocol != 132)
        {
            throw new IllegalArgumentException(what + ": dport needs proto tcp, udp or sctp");
        }
        final MarkRule rule;
        try
        {
            rule = new MarkRule(mark, MarkRule.ANY_PORT, src, dst, protocol, dport);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(what + ": " + ex.getMessage());
        }
        marks.add(new PendingMark(rule, in, line));
    }

    /** A 32-bit mark, decimal or 0x hex, as iptables' MARK target and ipvsadm's -f take it. */
    private static IpPrefix prefix(final String what, final String option, final String text)
    {
        final IpPrefix prefix;
        try
        {
            prefix = IpPrefix.parse(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(what + ": " + option + " " + text + ": " + ex.getMessage());
        }
        final int slash = text.indexOf('/');
        if (slash >= 0 && !IpAddress.parse(text.substring(0, slash)).equals(prefix.network()))
        {
            // As ip-route(8) refuses one: a typo in the address would otherwise widen the rule unseen.
            throw new IllegalArgumentException(what + ": " + option + " " + text + ": the address has bits set past " +
                "the prefix length (did you mean " + prefix.network() + "/" + prefix.length() + "?)");
        }
        return prefix;
    }

    private static int protocol(final String what, final String text)
    {
        switch (text.toLowerCase(Locale.ROOT))
        {
            case "tcp":
                return 6;
            case "udp":
                return 17;
            case "sctp":
                return 132;
            case "icmp":
                return 1;
            case "icmpv6", "ipv6-icmp":
                return 58;
            default:
                try
                {
                    final int number = Integer.parseInt(text);
                    if (number >= 1 && number <= 255)
                    {
                        return number;
                    }
                }
                catch (final NumberFormatException ex)
                {
                    // refused below
                }
                throw new IllegalArgumentException(what + ": proto is tcp, udp, sctp, icmp, icmpv6 or a number " +
                    "1..255, not \"" + text + "\"");
        }
    }

    private int indexOf(final String name)
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

    private String interfaceNames()
    {
        if (interfaces.isEmpty())
        {
            return " (the file has no interface statements)";
        }
        final List<String> names = new ArrayList<>();
        for (final InterfaceConfig face : interfaces)
        {
            names.add(face.name());
        }
        return " (interfaces: " + String.join(", ", names) + ")";
    }

    private void port(final String[] words)
    {
        final int index = integer(words, 1, "port index", 0, 255);
        long mac = -1;
        int mtu = 1500;
        IpAddress ipv4 = null;
        IpAddress ipv6 = null;
        for (int i = 2; i < words.length; i += 2)
        {
            final String value = value(words[0], words, i);
            switch (words[i])
            {
                case "mac" -> mac = mac(value);
                case "mtu" -> mtu = integer(words, i + 1, "mtu", 68, 65535);
                case "ipv4" -> ipv4 = address(value, false);
                case "ipv6" -> ipv6 = address(value, true);
                default -> throw new IllegalArgumentException("port: unknown option \"" + words[i] +
                    "\" (mac, mtu, ipv4, ipv6)");
            }
        }
        if (mac < 0)
        {
            throw new IllegalArgumentException("port " + index + ": needs mac XX:XX:XX:XX:XX:XX");
        }
        if (ports.containsKey(index))
        {
            throw new IllegalArgumentException("port " + index + " is already defined");
        }
        ports.put(index, new Topology.Port(index, mac, mtu, ipv4, ipv6));
        portLines.put(index, line);
    }

    private void gateway(final String[] words)
    {
        long mac = -1;
        int port = 0;
        String family = "both";
        for (int i = 1; i < words.length; i += 2)
        {
            final String value = value(words[0], words, i);
            switch (words[i])
            {
                case "mac" -> mac = mac(value);
                case "port" -> port = integer(words, i + 1, "port", 0, 255);
                case "family" ->
                {
                    if (!value.equals("ipv4") && !value.equals("ipv6") && !value.equals("both"))
                    {
                        throw new IllegalArgumentException("gateway: family is ipv4, ipv6 or both, not " + value);
                    }
                    family = value;
                }
                default -> throw new IllegalArgumentException("gateway: unknown option \"" + words[i] +
                    "\" (mac, port, family)");
            }
        }
        if (mac < 0)
        {
            throw new IllegalArgumentException("gateway: needs mac XX:XX:XX:XX:XX:XX");
        }
        final Topology.Neighbour hop = new Topology.Neighbour(port, mac);
        if (!family.equals("ipv6"))
        {
            gatewayV4 = hop;
            gatewayV4Line = line;
        }
        if (!family.equals("ipv4"))
        {
            gatewayV6 = hop;
            gatewayV6Line = line;
        }
    }

    private void neighbour(final String[] words)
    {
        if (words.length < 2)
        {
            throw new IllegalArgumentException("neighbour: needs an address, then mac XX:XX:XX:XX:XX:XX");
        }
        final IpAddress address = IpAddress.parse(words[1]);
        long mac = -1;
        int port = 0;
        for (int i = 2; i < words.length; i += 2)
        {
            final String value = value(words[0], words, i);
            switch (words[i])
            {
                case "mac" -> mac = mac(value);
                case "port" -> port = integer(words, i + 1, "port", 0, 255);
                default -> throw new IllegalArgumentException("neighbour: unknown option \"" + words[i] +
                    "\" (mac, port)");
            }
        }
        if (mac < 0)
        {
            throw new IllegalArgumentException("neighbour " + words[1] + ": needs mac XX:XX:XX:XX:XX:XX");
        }
        neighbours.put(address, new Topology.Neighbour(port, mac));
        neighbourLines.put(address, line);
    }

    private void set(final String[] words)
    {
        if (words.length != 3)
        {
            throw new IllegalArgumentException("set: needs a name and a value, e.g. set sloppy_tcp 1");
        }
        final String name = words[1];
        if (name.equals("icmp_replies_per_second"))
        {
            icmpRepliesPerSecond = integer(words, 2, name, 0, 1_000_000);
            return;
        }
        if (name.equals("lblc_expiration") || name.equals("lblcr_expiration"))
        {
            // Seconds, as /proc/sys/net/ipv4/vs takes them.
            final int seconds = integer(words, 2, name, 0, JvsConfig.Expirations.MAX_SECONDS);
            if (name.equals("lblc_expiration"))
            {
                lblcExpiration = seconds;
            }
            else
            {
                lblcrExpiration = seconds;
            }
            return;
        }
        final boolean on = switch (words[2])
        {
            case "1", "on", "yes", "true" -> true;
            case "0", "off", "no", "false" -> false;
            default -> throw new IllegalArgumentException("set " + name + ": the value is 0 or 1, not " + words[2]);
        };
        switch (name)
        {
            case "pass_unmatched" -> passUnmatched = on;
            case "allow_ip_options" -> allowIpOptions = on;
            case "allow_fragments" -> allowFragments = on;
            case "expire_nodest_conn" -> expireNodestConn = on;
            case "expire_quiescent_template" -> expireQuiescentTemplate = on;
            case "sloppy_tcp" -> sloppyTcp = on;
            case "conn_reuse_mode" -> connReuse = on;
            case "active_established_only" -> activeEstablishedOnly = on;
            case "clamp_mss" -> clampMss = on;
            case "pmtu_disc" -> pmtuDisc = on;
            case "schedule_icmp" -> scheduleIcmp = on;
            default -> throw new IllegalArgumentException("set: unknown switch \"" + name + "\" (pass_unmatched, " +
                "allow_ip_options, allow_fragments, expire_nodest_conn, expire_quiescent_template, sloppy_tcp, " +
                "conn_reuse_mode, active_established_only, clamp_mss, pmtu_disc, schedule_icmp, " +
                "icmp_replies_per_second, lblc_expiration, lblcr_expiration)");
        }
    }

    private void timeout(final String[] words)
    {
        if (words.length == 1 || words.length % 2 == 0)
        {
            throw new IllegalArgumentException("timeout: needs name/seconds pairs, e.g. timeout tcp 900 udp 300");
        }
        for (int i = 1; i < words.length; i += 2)
        {
            final int seconds = integer(words, i + 1, words[i], 1, ConnectionTimeouts.MAX_SECONDS);
            final int which = switch (words[i])
            {
                case "tcp" -> 0;
                case "tcpfin" -> 1;
                case "udp" -> 2;
                default -> throw new IllegalArgumentException("timeout: unknown name \"" + words[i] +
                    "\" (tcp, tcpfin, udp)");
            };
            if (timeouts[which] != 0)
            {
                throw new IllegalArgumentException("timeout: " + words[i] + " is given twice");
            }
            timeouts[which] = seconds;
        }
    }

    private static String value(final String what, final String[] words, final int i)
    {
        if (i + 1 >= words.length)
        {
            throw new IllegalArgumentException(what + ": \"" + words[i] + "\" needs a value");
        }
        return words[i + 1];
    }

    private static int integer(final String[] words, final int i, final String what, final int min, final int max)
    {
        return integer(words[0], words, i, what, min, max);
    }

    private static int integer(
        final String statement, final String[] words, final int i, final String what, final int min, final int max)
    {
        if (i >= words.length)
        {
            throw new IllegalArgumentException(statement + ": needs " + what);
        }
        try
        {
            final int value = Integer.parseInt(words[i]);
            if (value < min || value > max)
            {
                throw new IllegalArgumentException(statement + ": " + what + " must be " + min + ".." + max +
                    ", not " + value);
            }
            return value;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(statement + ": " + what + " must be a number, not \"" + words[i] + "\"");
        }
    }

    private static long mac(final String text)
    {
        try
        {
            return EthernetHeader.parseMac(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("\"" + text + "\" is not a MAC address (XX:XX:XX:XX:XX:XX)");
        }
    }

    private static IpAddress address(final String text, final boolean v6)
    {
        final IpAddress address = IpAddress.parse(text);
        if (address.isV6() != v6)
        {
            throw new IllegalArgumentException("\"" + text + "\" is not an " + (v6 ? "IPv6" : "IPv4") + " address");
        }
        return address;
    }
}
