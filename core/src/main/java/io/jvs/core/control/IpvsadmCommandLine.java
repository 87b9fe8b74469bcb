package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Parses an ipvsadm 1.31 command line into a {@link IpvsadmRequest}, with ipvsadm's own checks and words.
 * <p>
 * The options are read as popt 1.19 reads ipvsadm's option table ({@code parse_options} in ipvsadm.c,
 * {@code poptGetNextOpt} in popt.c): long options only with two dashes and spelled out in full (no abbreviations),
 * {@code --name=value}; short options clustered ({@code -Ln}) with a value attached ({@code -w3}, {@code -w=3}) or
 * in the next word, even one starting with a dash ({@code -s -t} names the scheduler "-t"), except for the optional
 * value of {@code -p}, which is taken only from a next word that does not start with a dash; words that are not
 * options are kept aside and read afterwards ({@code --set}'s three values, else "unexpected argument"); {@code --}
 * ends the options. The first option must be a command. The checks then run in ipvsadm's order: each option as it
 * is read, the leftover words, the scheduler flags, {@code generic_opt_check}'s table, then the per-command checks
 * of {@code process_options}. Every failure is an {@link IpvsadmException}.
 * <p>
 * The program name plays no part here; only the "Try ... -h" hint names it ({@link IpvsadmException#errorText}).
 * <p>
 * Where jvs cannot do what ipvsadm would ask of the kernel it says so with exit status 2 after every ipvsadm check:
 * GUE and GRE tunnels, and an IPv4 persistence mask that is not a prefix.
 */
public final class IpvsadmCommandLine
{
    /** MAX_TIMEOUT in ipvsadm.c: 31 days. */
    static final int MAX_TIMEOUT = 86400 * 31;
    /** IPVS_SVC_PERSISTENT_TIMEOUT: what -p without a value means. */
    static final int DEFAULT_PERSISTENT_TIMEOUT = 6 * 60;
    /** IP_VS_SCHEDNAME_MAXLEN - 1: the longest scheduler name ipvsadm passes on. */
    private static final int SCHEDULER_NAME_MAX = 15;
    /** IP_VS_PENAME_MAXLEN. */
    private static final int PE_NAME_MAX = 16;
    /** The size of ipvsadm's sched_flags_arg buffer, less its terminator. */
    private static final int SCHED_FLAGS_MAX = 127;

    /** ipvsadm's commands, in CMD_ order; the label is cmdnames[]. */
    private enum Command
    {
        ADD("add-service"),
        EDIT("edit-service"),
        DEL("delete-service"),
        FLUSH("flush"),
        LIST("list"),
        ADDDEST("add-server"),
        DELDEST("delete-server"),
        EDITDEST("edit-server"),
        TIMEOUT("set"),
        STARTDAEMON("start-daemon"),
        STOPDAEMON("stop-daemon"),
        RESTORE("restore"),
        SAVE("save"),
        ZERO("zero");

        final String label;

        Command(final String label)
        {
            this.label = label;
        }
    }

    /** The options generic_opt_check knows, in OPTC_ order; the label is optnames[]. */
    private enum Opt
    {
        NUMERIC("numeric"),
        CONNECTION("connection"),
        SERVICE("service-address"),
        SCHEDULER("scheduler"),
        PERSISTENT("persistent"),
        NETMASK("netmask"),
        SERVER("real-server"),
        FORWARD("forwarding-method"),
        WEIGHT("weight"),
        UTHRESHOLD("u-threshold"),
        LTHRESHOLD("l-threshold"),
        MCAST("mcast-interface"),
        TIMEOUT("timeout"),
        DAEMON("daemon"),
        STATS("stats"),
        RATE("rate"),
        THRESHOLDS("thresholds"),
        PERSISTENTCONN("persistent-conn"),
        NOSORT("nosort"),
        SYNCID("syncid"),
        EXACT("exact"),
        ONEPACKET("ops"),
        PERSISTENCE_ENGINE("pe"),
        SCHED_FLAGS("sched-flags"),
        MCAST_GROUP("mcast-group"),
        MCAST_PORT("mcast-port"),
        MCAST_TTL("mcast-ttl"),
        SYNC_MAXLEN("sync-maxlen"),
        TUN_INFO("tun-info"),
        TUN_TYPE("tun-type"),
        TUN_PORT("tun-port"),
        TUN_NOCSUM("tun-nocsum"),
        TUN_CSUM("tun-csum"),
        TUN_REMCSUM("tun-remcsum");

        final String label;

        Opt(final String label)
        {
            this.label = label;
        }
    }

    /**
     * commands_v_options, one string per command in Command order, one character per option in Opt order:
     * '+' required, 'x' illegal, '1' at most one of them, ' ' optional.
     */
    private static final String[] TABLE = {
        "xx+   xxxxxxxxxxxxxxx   xxxxxxxxxx",
        "xx+   xxxxxxxxxxxxxxx   xxxxxxxxxx",
        "xx+xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        " 11xxxxxxxxx11       xxxxxxx xxxxx",
        "xx+xxx+    xxxxxxxxxxxxxxxxxx     ",
        "xx+xxx+xxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "xx+xxx+    xxxxxxxxxxxxxxxxxx     ",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "xxxxxxxxxxx xxxxxxx xxxx    xxxxxx",
        "xxxxxxxxxxxxxxxxxxx xxxxxxxxxxxxxx",
        "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        " xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "xx xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    };

    /** tunnel_types_v_options for tun-port, tun-nocsum, tun-csum, tun-remcsum: ipip, gue, gre. */
    private static final String[] TUNNEL_TABLE = {"xxxx", "+111", "x11x"};
    private static final Opt[] TUNNEL_OPTIONS = {Opt.TUN_PORT, Opt.TUN_NOCSUM, Opt.TUN_CSUM, Opt.TUN_REMCSUM};
    private static final String[] TUNNEL_NAMES = {"ipip", "gue", "gre"};

    private IpvsadmCommandLine()
    {
    }

    /**
     * @param tunnelType {@code IP_VS_CONN_F_TUNNEL_TYPE_*}, not IPIP's 0.
     * @return why jvs refuses a real server tunnelled so: ctl's message, and the daemon's log line's reason for a
     *         netlink request, whose client only gets an errno.
     */
    public static String unsupportedTunnel(final int tunnelType)
    {
        final String name = tunnelType >= 0 && tunnelType < TUNNEL_NAMES.length ? TUNNEL_NAMES[tunnelType] :
            Integer.toString(tunnelType);
        return "tunnel type `" + name + "' is not supported by jvs yet (ipip only)";
    }

    /**
     * Parses a command line as ipvsadm does, looking up no names.
     *
     * @param args         the arguments after the program name.
     * @param readingStdin true for a line of {@code -R}'s input (where {@code -R} itself is refused).
     * @return the request.
     * @throws IpvsadmException with ipvsadm's words when ipvsadm would refuse the line.
     */
    public static IpvsadmRequest parse(final List<String> args, final boolean readingStdin)
    {
        return parse(args, readingStdin, Names.NUMERIC);
    }

    /**
     * Parses a command line as ipvsadm does.
     *
     * @param args         the arguments after the program name.
     * @param readingStdin true for a line of {@code -R}'s input.
     * @param names        host and service names for addresses and ports given by name.
     * @return the request; no arguments at all is {@code -L} without {@code -n}, as ipvsadm's main does.
     * @throws IpvsadmException with ipvsadm's words when ipvsadm would refuse the line.
     */
    public static IpvsadmRequest parse(final List<String> args, final boolean readingStdin, final Names names)
    {
        if (args.isEmpty())
        {
            return new IpvsadmRequest.ListServices(null, ListFormat.DEFAULT);
        }
        return new Parse(args, readingStdin, names).run();
    }

    /** The option table of parse_options: long name, short name, what value it takes. */
    private enum Option
    {
        ADD_SERVICE("add-service", 'A', Value.NONE),
        EDIT_SERVICE("edit-service", 'E', Value.NONE),
        DELETE_SERVICE("delete-service", 'D', Value.NONE),
        CLEAR("clear", 'C', Value.NONE),
        LIST_UPPER("list", 'L', Value.NONE),
        LIST_LOWER("list", 'l', Value.NONE),
        ZERO("zero", 'Z', Value.NONE),
        ADD_SERVER("add-server", 'a', Value.NONE),
        EDIT_SERVER("edit-server", 'e', Value.NONE),
        DELETE_SERVER("delete-server", 'd', Value.NONE),
        SET("set", '\0', Value.NONE),
        HELP("help", 'h', Value.NONE),
        VERSION("version", 'v', Value.NONE),
        RESTORE("restore", 'R', Value.NONE),
        SAVE("save", 'S', Value.NONE),
        START_DAEMON("start-daemon", '\0', Value.REQUIRED),
        STOP_DAEMON("stop-daemon", '\0', Value.REQUIRED),
        TCP_SERVICE("tcp-service", 't', Value.REQUIRED),
        UDP_SERVICE("udp-service", 'u', Value.REQUIRED),
        SCTP_SERVICE("sctp-service", '\0', Value.REQUIRED),
        FWMARK_SERVICE("fwmark-service", 'f', Value.REQUIRED),
        SCHEDULER("scheduler", 's', Value.REQUIRED),
        PERSISTENT("persistent", 'p', Value.OPTIONAL),
        NETMASK("netmask", 'M', Value.REQUIRED),
        REAL_SERVER("real-server", 'r', Value.REQUIRED),
        MASQUERADING("masquerading", 'm', Value.NONE),
        IPIP("ipip", 'i', Value.NONE),
        GATEWAYING("gatewaying", 'g', Value.NONE),
        WEIGHT("weight", 'w', Value.REQUIRED),
        U_THRESHOLD("u-threshold", 'x', Value.REQUIRED),
        L_THRESHOLD("l-threshold", 'y', Value.REQUIRED),
        NUMERIC("numeric", 'n', Value.NONE),
        CONNECTION("connection", 'c', Value.NONE),
        MCAST_INTERFACE("mcast-interface", '\0', Value.REQUIRED),
        SYNCID("syncid", '\0', Value.REQUIRED),
        TIMEOUT("timeout", '\0', Value.NONE),
        DAEMON("daemon", '\0', Value.NONE),
        STATS("stats", '\0', Value.NONE),
        RATE("rate", '\0', Value.NONE),
        THRESHOLDS("thresholds", '\0', Value.NONE),
        PERSISTENT_CONN("persistent-conn", '\0', Value.NONE),
        NOSORT("nosort", '\0', Value.NONE),
        SORT("sort", '\0', Value.NONE),
        EXACT("exact", 'X', Value.NONE),
        IPV6("ipv6", '6', Value.NONE),
        OPS("ops", 'o', Value.NONE),
        PE("pe", '\0', Value.REQUIRED),
        SCHED_FLAGS("sched-flags", 'b', Value.REQUIRED),
        MCAST_GROUP("mcast-group", '\0', Value.REQUIRED),
        MCAST_PORT("mcast-port", '\0', Value.REQUIRED),
        MCAST_TTL("mcast-ttl", '\0', Value.REQUIRED),
        SYNC_MAXLEN("sync-maxlen", '\0', Value.REQUIRED),
        TUN_INFO("tun-info", '\0', Value.NONE),
        TUN_TYPE("tun-type", '\0', Value.REQUIRED),
        TUN_PORT("tun-port", '\0', Value.REQUIRED),
        TUN_NOCSUM("tun-nocsum", '\0', Value.NONE),
        TUN_CSUM("tun-csum", '\0', Value.NONE),
        TUN_REMCSUM("tun-remcsum", '\0', Value.NONE);

        final String longName;
        final char shortName;
        final Value value;

        Option(final String longName, final char shortName, final Value value)
        {
            this.longName = longName;
            this.shortName = shortName;
            this.value = value;
        }

        /** findOption: the first entry of that long name (so --list is 'L'). */
        static Option byLong(final String name)
        {
            for (final Option option : values())
            {
                if (option.longName.equals(name))
                {
                    return option;
                }
            }
            return null;
        }

        static Option byShort(final char name)
        {
            for (final Option option : values())
            {
                if (option.shortName != '\0' && option.shortName == name)
                {
                    return option;
                }
            }
            return null;
        }
    }

    /** POPT_ARG_NONE, POPT_ARG_STRING, POPT_ARG_STRING | POPT_ARGFLAG_OPTIONAL. */
    private enum Value
    {
        NONE,
        REQUIRED,
        OPTIONAL
    }

    /** A popt error code and its poptStrerror text. */
    private static final class PoptError extends Exception
    {
        PoptError(final String text)
        {
            super(text, null, false, false);
        }
    }

    /** poptGetNextOpt over one argument vector. */
    private static final class Popt
    {
        private final List<String> words;
        private final List<String> leftovers = new ArrayList<>();
        private int next;
        private int leftoverRead;
        private String nextCharArg;
        private boolean restLeftover;
        private String optarg;

        Popt(final List<String> words)
        {
            this.words = words;
        }

        /** @return the next option, or null when none is left. */
        Option nextOption() throws PoptError
        {
            while (true)
            {
                if (nextCharArg == null && next == words.size())
                {
                    return null;
                }
                String longArg = null;
                Option option = null;
                if (nextCharArg == null)
                {
                    final String word = words.get(next++);
                    if (restLeftover || !word.startsWith("-") || "-".equals(word))
                    {
                        leftovers.add(word);
                        continue;
                    }
                    if ("--".equals(word))
                    {
                        restLeftover = true;
                        continue;
                    }
                    final boolean oneDash = word.charAt(1) != '-';
                    final String text = word.substring(oneDash ? 1 : 2);
                    if (oneDash)
                    {
                        // No ipvsadm option is a one-dash long option (POPT_ARGFLAG_ONEDASH): a cluster of short ones.
                        nextCharArg = text;
                    }
                    else
                    {
                        final int equals = text.indexOf('=');
                        option = Option.byLong(equals >= 0 ? text.substring(0, equals) : text);
                        if (option == null)
                        {
                            throw new PoptError("unknown option");
                        }
                        longArg = equals >= 0 ? text.substring(equals + 1) : null;
                    }
                }
                if (nextCharArg != null)
                {
                    final String cluster = nextCharArg;
                    nextCharArg = null;
                    option = Option.byShort(cluster.charAt(0));
                    if (option == null)
                    {
                        throw new PoptError("unknown option");
                    }
                    if (cluster.length() > 1)
                    {
                        nextCharArg = cluster.substring(1);
                    }
                }
                if (option.value == Value.NONE)
                {
                    if (longArg != null || (nextCharArg != null && nextCharArg.startsWith("=")))
                    {
                        throw new PoptError("option does not take an argument");
                    }
                    return option;
                }
                if (longArg != null)
                {
                    optarg = longArg;
                }
                else if (nextCharArg != null)
                {
                    optarg = nextCharArg.startsWith("=") ? nextCharArg.substring(1) : nextCharArg;
                    nextCharArg = null;
                }
                else if (next == words.size())
                {
                    if (option.value != Value.OPTIONAL)
                    {
                        throw new PoptError("missing argument");
                    }
                    optarg = null;
                }
                else if (option.value == Value.OPTIONAL && words.get(next).startsWith("-"))
                {
                    optarg = null;
                }
                else
                {
                    optarg = words.get(next++);
                }
                return option;
            }
        }

        /** poptBadOption(POPT_BADOPTION_NOALIAS): the word last read. */
        String badOption()
        {
            return next == 0 ? "" : words.get(next - 1);
        }

        /** poptGetArg. */
        String nextLeftover()
        {
            return leftoverRead < leftovers.size() ? leftovers.get(leftoverRead++) : null;
        }
    }

    /** The state of one command line, as ipvsadm's ipvs_command_entry and option bits. */
    private static final class Parse
    {
        private final boolean readingStdin;
        private final Names names;
        private final Popt popt;
        private final Set<Opt> options = EnumSet.noneOf(Opt.class);
        private Command command;

        // The service (ipvs_service_t).
        private boolean v6;
        private Protocol protocol;
        private IpAddress address;
        private int port;
        private int firewallMark;
        private boolean firewallMarkService;
        private int netmask = 0xFFFF_FFFF;
        private boolean persistent;
        private int timeout;
        private boolean onePacket;
        private String scheduler = "";
        private String persistenceEngine = "";
        private String schedFlags = "";
        private SchedulerFlags flags = SchedulerFlags.NONE;

        // The destination (ipvs_dest_t).
        private boolean destV6;
        private IpAddress destAddress;
        private int destPort;
        private ForwardMethod forward = ForwardMethod.DR;
        private int weight = 1;
        private int upperThreshold;
        private int lowerThreshold;
        private int tunnelType;

        // Listing formats, --set values, daemon state.
        private final boolean[] format = new boolean[8];
        private final int[] timeouts = new int[3];
        private boolean master;

        Parse(final List<String> args, final boolean readingStdin, final Names names)
        {
            this.readingStdin = readingStdin;
            this.names = names;
            this.popt = new Popt(args);
        }

        IpvsadmRequest run()
        {
            final IpvsadmRequest early = firstOption();
            if (early != null)
            {
                return early;
            }
            while (true)
            {
                final Option option;
                try
                {
                    option = popt.nextOption();
                }
                catch (final PoptError ex)
                {
                    throw new IpvsadmException(IpvsadmException.Kind.POPT, popt.badOption() + ": " + ex.getMessage());
                }
                if (option == null)
                {
                    break;
                }
                option(option);
            }
            leftovers();
            if (!schedFlags.isEmpty())
            {
                flags = schedulerFlags(scheduler.isEmpty() ? "wlc" : scheduler, schedFlags);
            }
            genericCheck();
            return build();
        }

        private IpvsadmRequest firstOption()
        {
            final Option option;
            try
            {
                option = popt.nextOption();
            }
            catch (final PoptError ex)
            {
                throw IpvsadmException.tryHelp();
            }
            if (option == null)
            {
                throw IpvsadmException.tryHelp();
            }
            switch (option)
            {
                case ADD_SERVICE -> command = Command.ADD;
                case EDIT_SERVICE -> command = Command.EDIT;
                case DELETE_SERVICE -> command = Command.DEL;
                case ADD_SERVER -> command = Command.ADDDEST;
                case EDIT_SERVER -> command = Command.EDITDEST;
                case DELETE_SERVER -> command = Command.DELDEST;
                case CLEAR -> command = Command.FLUSH;
                case LIST_UPPER, LIST_LOWER -> command = Command.LIST;
                case ZERO -> command = Command.ZERO;
                case SET -> command = Command.TIMEOUT;
                case RESTORE -> command = Command.RESTORE;
                case SAVE -> command = Command.SAVE;
                case START_DAEMON, STOP_DAEMON ->
                {
                    command = option == Option.START_DAEMON ? Command.STARTDAEMON : Command.STOPDAEMON;
                    if ("master".equals(popt.optarg) || "backup".equals(popt.optarg))
                    {
                        master = "master".equals(popt.optarg);
                    }
                    else
                    {
                        throw IpvsadmException.fail(option == Option.START_DAEMON ?
                            "illegal start-daemon parameter specified" : "illegal start_daemon specified");
                    }
                }
                case HELP ->
                {
                    return new IpvsadmRequest.Help();
                }
                case VERSION ->
                {
                    return new IpvsadmRequest.Version();
                }
                default -> throw IpvsadmException.tryHelp();
            }
            return null;
        }

        private void option(final Option option)
        {
            final String arg = popt.optarg;
            switch (option)
            {
                case TCP_SERVICE, UDP_SERVICE, SCTP_SERVICE ->
                {
                    set(Opt.SERVICE);
                    protocol = option == Option.TCP_SERVICE ? Protocol.TCP :
                        option == Option.UDP_SERVICE ? Protocol.UDP : Protocol.SCTP;
                    final Address parsed = parseService(arg, protocol, port);
                    if (parsed == null)
                    {
                        throw IpvsadmException.fail("illegal virtual server address[:port] specified");
                    }
                    v6 = parsed.v6;
                    address = parsed.address;
                    port = parsed.port;
                    if (v6)
                    {
                        netmask = 128;
                    }
                }
                case FWMARK_SERVICE ->
                {
                    set(Opt.SERVICE);
                    // parse_options: "Set protocol to a sane values, even though it is not used".
                    v6 = false;
                    protocol = Protocol.TCP;
                    firewallMarkService = true;
                    firewallMark = parseFirewallMark(arg);
                }
                case SCHEDULER ->
                {
                    set(Opt.SCHEDULER);
                    scheduler = truncate(arg, SCHEDULER_NAME_MAX);
                }
                case PERSISTENT ->
                {
                    set(Opt.PERSISTENT);
                    persistent = true;
                    timeout = arg == null ? DEFAULT_PERSISTENT_TIMEOUT : parseTimeout(arg, 1);
                }
                case NETMASK ->
                {
                    set(Opt.NETMASK);
                    if (!v6)
                    {
                        final IpAddress mask = inetAton(arg);
                        final IpAddress named = mask != null ? mask : names.hostAddress(arg);
                        if (named == null || named.isV6())
                        {
                            throw IpvsadmException.fail("illegal virtual server persistent mask specified");
                        }
                        netmask = named.v4();
                    }
                    else
                    {
                        netmask = atoi(arg);
                        if (netmask < 1 || netmask > 128)
                        {
                            throw IpvsadmException.fail("illegal ipv6 netmask specified");
                        }
                    }
                }
                case REAL_SERVER ->
                {
                    set(Opt.SERVER);
                    final Address parsed = parseService(arg, protocol, port);
                    if (parsed == null)
                    {
                        throw IpvsadmException.fail("illegal real server address[:port] specified");
                    }
                    destV6 = parsed.v6;
                    destAddress = parsed.address;
                    // Without a port of its own the server takes the service's.
                    destPort = parsed.hasPort ? parsed.port : port;
                }
                case IPIP, GATEWAYING, MASQUERADING ->
                {
                    set(Opt.FORWARD);
                    forward = option == Option.IPIP ? ForwardMethod.TUN :
                        option == Option.GATEWAYING ? ForwardMethod.DR : ForwardMethod.NAT;
                }
                case WEIGHT ->
                {
                    set(Opt.WEIGHT);
                    // Debian's ipvsadm takes what the kernel takes (Debian bug 814348); upstream 1.31 stops at 65535.
                    weight = number(arg, 0, RealServer.MAX_WEIGHT, "illegal weight specified");
                }
                case U_THRESHOLD ->
                {
                    set(Opt.UTHRESHOLD);
                    upperThreshold = number(arg, 0, Integer.MAX_VALUE, "illegal u_threshold specified");
                }
                case L_THRESHOLD ->
                {
                    set(Opt.LTHRESHOLD);
                    lowerThreshold = number(arg, 0, Integer.MAX_VALUE, "illegal l_threshold specified");
                }
                case CONNECTION -> set(Opt.CONNECTION);
                case NUMERIC -> formatOption(Opt.NUMERIC, 0);
                case MCAST_INTERFACE -> set(Opt.MCAST);
                case SYNCID ->
                {
                    set(Opt.SYNCID);
                    number(arg, 0, 255, "illegal syncid specified");
                }
                case TIMEOUT -> set(Opt.TIMEOUT);
                case DAEMON -> set(Opt.DAEMON);
                case STATS -> formatOption(Opt.STATS, 1);
                case RATE -> formatOption(Opt.RATE, 2);
                case THRESHOLDS -> formatOption(Opt.THRESHOLDS, 3);
                case PERSISTENT_CONN -> formatOption(Opt.PERSISTENTCONN, 4);
                case NOSORT -> formatOption(Opt.NOSORT, 5);
                case SORT ->
                {
                    // Sorting is the default: a no-op kept for compatibility.
                }
                case EXACT -> formatOption(Opt.EXACT, 6);
                case IPV6 ->
                {
                    if (firewallMark == 0)
                    {
                        // ipvsadm's text has its own newline before fail() adds one.
                        throw IpvsadmException.fail("-6 used before -f\n");
                    }
                    v6 = true;
                    netmask = 128;
                }
                case OPS ->
                {
                    set(Opt.ONEPACKET);
                    onePacket = true;
                }
                case PE ->
                {
                    set(Opt.PERSISTENCE_ENGINE);
                    persistenceEngine = truncate(arg, PE_NAME_MAX);
                }
                case SCHED_FLAGS ->
                {
                    set(Opt.SCHED_FLAGS);
                    schedFlags = truncate(arg, SCHED_FLAGS_MAX);
                }
                case MCAST_GROUP ->
                {
                    set(Opt.MCAST_GROUP);
                    mcastGroup(arg);
                }
                case MCAST_PORT ->
                {
                    set(Opt.MCAST_PORT);
                    number(arg, 1, 65535, "illegal mcast-port specified");
                }
                case MCAST_TTL ->
                {
                    set(Opt.MCAST_TTL);
                    number(arg, 1, 255, "illegal mcast-ttl specified");
                }
                case SYNC_MAXLEN ->
                {
                    set(Opt.SYNC_MAXLEN);
                    number(arg, 1, 65535 - 20 - 8, "illegal sync-maxlen specified");
                }
                case TUN_INFO -> formatOption(Opt.TUN_INFO, 7);
                case TUN_TYPE ->
                {
                    set(Opt.TUN_TYPE);
                    tunnelType = List.of(TUNNEL_NAMES).indexOf(arg);
                    if (tunnelType < 0)
                    {
                        throw IpvsadmException.fail("illegal tunnel type specified");
                    }
                }
                case TUN_PORT ->
                {
                    set(Opt.TUN_PORT);
                    number(arg, 1, 65535, "illegal tunnel port specified");
                }
                case TUN_NOCSUM -> set(Opt.TUN_NOCSUM);
                case TUN_CSUM -> set(Opt.TUN_CSUM);
                case TUN_REMCSUM -> set(Opt.TUN_REMCSUM);
                default -> throw IpvsadmException.fail("invalid option `" + popt.badOption() + "'");
            }
        }

        private void formatOption(final Opt opt, final int flag)
        {
            set(opt);
            format[flag] = true;
        }

        private void set(final Opt opt)
        {
            if (!options.add(opt))
            {
                throw IpvsadmException.fail("multiple '" + opt.label + "' options specified");
            }
        }

        private void leftovers()
        {
            if (command == Command.TIMEOUT)
            {
                final String tcp = popt.nextLeftover();
                final String tcpFin = tcp == null ? null : popt.nextLeftover();
                final String udp = tcpFin == null ? null : popt.nextLeftover();
                if (udp == null)
                {
                    throw IpvsadmException.fail("--set option requires 3 timeout values");
                }
                timeouts[0] = parseTimeout(tcp, 0);
                timeouts[1] = parseTimeout(tcpFin, 0);
                timeouts[2] = parseTimeout(udp, 0);
            }
            final String unexpected = popt.nextLeftover();
            if (unexpected != null)
            {
                throw IpvsadmException.fail("unexpected argument " + unexpected);
            }
        }

        private void genericCheck()
        {
            final String row = TABLE[command.ordinal()];
            Opt last = null;
            for (final Opt opt : Opt.values())
            {
                final char rule = row.charAt(opt.ordinal());
                if (!options.contains(opt))
                {
                    if (rule == '+')
                    {
                        throw IpvsadmException.fail("You need to supply the '" + opt.label + "' option for the '" +
                            command.label + "' command");
                    }
                    continue;
                }
                if (rule == 'x')
                {
                    throw IpvsadmException.fail("Illegal '" + opt.label + "' option with the '" + command.label +
                        "' command");
                }
                if (rule == '1')
                {
                    if (last != null)
                    {
                        throw IpvsadmException.fail("The option '" + opt.label + "' conflicts with the '" + last.label +
                            "' option in the '" + command.label + "' command");
                    }
                    last = opt;
                }
            }
        }

        private IpvsadmRequest build()
        {
            if (command == Command.ADD || command == Command.EDIT)
            {
                if (!firewallMarkService && port == 0 && !persistent)
                {
                    throw IpvsadmException.fail("Zero port specified for non-persistent service");
                }
                if (onePacket && !firewallMarkService && protocol != Protocol.UDP)
                {
                    throw IpvsadmException.fail("One-Packet Scheduling is only for UDP virtual services");
                }
                if (scheduler.isEmpty())
                {
                    scheduler = "wlc";
                }
            }
            if (command == Command.ADDDEST || command == Command.EDITDEST)
            {
                destinationChecks();
            }
            return switch (command)
            {
                case LIST -> list();
                case RESTORE ->
                {
                    if (readingStdin)
                    {
                        // restore_table: "avoid infinite loop".
                        throw IpvsadmException.tryHelp();
                    }
                    yield new IpvsadmRequest.Restore();
                }
                case SAVE -> new IpvsadmRequest.Save(format[0]);
                case FLUSH -> change(new RuleCommand.Clear());
                case ADD -> change(new RuleCommand.AddService(key(), settings(), persistenceEngine));
                case EDIT -> change(new RuleCommand.EditService(key(), settings(), persistenceEngine));
                case DEL -> change(new RuleCommand.DeleteService(key()));
                case ZERO -> change(new RuleCommand.Zero(options.contains(Opt.SERVICE) ? key() : null));
                case ADDDEST, EDITDEST -> change(new RuleCommand.PutServer(command == Command.EDITDEST, key(),
                    destAddress, destPort, forward, weight, upperThreshold, lowerThreshold));
                case DELDEST -> change(new RuleCommand.DeleteServer(key(), destAddress, destPort));
                case TIMEOUT -> change(new RuleCommand.SetTimeouts(timeouts[0], timeouts[1], timeouts[2]));
                case STARTDAEMON, STOPDAEMON -> new IpvsadmRequest.SyncDaemon(command == Command.STARTDAEMON, master);
            };
        }

        private void destinationChecks()
        {
            // A direct-routed or tunnelled packet keeps the service's port.
            if (!firewallMarkService && (forward == ForwardMethod.TUN || forward == ForwardMethod.DR))
            {
                destPort = port;
            }
            if (destV6 != v6 && forward != ForwardMethod.TUN)
            {
                throw IpvsadmException.fail("Different address family is allowed only for tunneling servers");
            }
            final boolean tunnelOptions = options.contains(Opt.TUN_TYPE) || options.contains(Opt.TUN_PORT) ||
                options.contains(Opt.TUN_NOCSUM) || options.contains(Opt.TUN_CSUM) || options.contains(Opt.TUN_REMCSUM);
            if (tunnelOptions && forward != ForwardMethod.TUN)
            {
                throw IpvsadmException.fail("Tunnel options conflict with forward method");
            }
            final String row = TUNNEL_TABLE[tunnelType];
            Opt last = null;
            for (int i = 0; i < TUNNEL_OPTIONS.length; i++)
            {
                final Opt opt = TUNNEL_OPTIONS[i];
                final char rule = row.charAt(i);
                if (!options.contains(opt))
                {
                    if (rule == '+')
                    {
                        throw IpvsadmException.fail("You need to supply the '" + opt.label + "' option for the '" +
                            TUNNEL_NAMES[tunnelType] + "' tunnel type");
                    }
                    continue;
                }
                if (rule == 'x')
                {
                    throw IpvsadmException.fail("Illegal '" + opt.label + "' option with the '" +
                        TUNNEL_NAMES[tunnelType] + "' tunnel type");
                }
                if (rule == '1')
                {
                    if (last != null)
                    {
                        throw IpvsadmException.fail("The option '" + opt.label + "' conflicts with the '" + last.label +
                            "' option in the '" + TUNNEL_NAMES[tunnelType] + "' tunnel type");
                    }
                    last = opt;
                }
            }
            if (tunnelType != 0)
            {
                throw IpvsadmException.fail(unsupportedTunnel(tunnelType));
            }
        }

        private IpvsadmRequest list()
        {
            final boolean connectionOrTimeout = options.contains(Opt.CONNECTION) || options.contains(Opt.TIMEOUT) ||
                options.contains(Opt.DAEMON);
            final boolean statistics = options.contains(Opt.STATS) || options.contains(Opt.RATE) ||
                options.contains(Opt.THRESHOLDS);
            if ((connectionOrTimeout && statistics) || ((options.contains(Opt.TIMEOUT) ||
                options.contains(Opt.DAEMON)) && options.contains(Opt.PERSISTENTCONN)))
            {
                throw IpvsadmException.fail("options conflicts in the list command");
            }
            final ListFormat listFormat = new ListFormat(format[0], format[1], format[2], format[3], format[4],
                format[5], format[6], format[7]);
            if (options.contains(Opt.CONNECTION))
            {
                return new IpvsadmRequest.ListConnections(listFormat);
            }
            if (options.contains(Opt.SERVICE))
            {
                return new IpvsadmRequest.ListServices(key(), listFormat);
            }
            if (options.contains(Opt.TIMEOUT))
            {
                return new IpvsadmRequest.ListTimeouts();
            }
            if (options.contains(Opt.DAEMON))
            {
                return new IpvsadmRequest.ListDaemon();
            }
            return new IpvsadmRequest.ListServices(null, listFormat);
        }

        private static IpvsadmRequest change(final RuleCommand ruleCommand)
        {
            return new IpvsadmRequest.Change(ruleCommand);
        }

        private ServiceKey key()
        {
            return firewallMarkService ? ServiceKey.ofFirewallMark(firewallMark, v6) :
                ServiceKey.of(protocol, address, port);
        }

        private ServiceSettings settings()
        {
            final int prefix;
            if (v6)
            {
                prefix = netmask;
            }
            else
            {
                prefix = Integer.bitCount(netmask);
                if (prefix != 32 && netmask != (prefix == 0 ? 0 : -1 << (32 - prefix)))
                {
                    throw IpvsadmException.fail("illegal virtual server persistent mask specified " +
                        "(jvs needs a contiguous mask)");
                }
            }
            return new ServiceSettings(scheduler, flags, persistent, persistent ? timeout : 0, prefix, onePacket);
        }

        /** parse_fwmark: strtol, then 1..UINT_MAX. */
        private static int parseFirewallMark(final String text)
        {
            final Long mark = strtol(text);
            if (mark == null || mark <= 0 || mark > 0xFFFF_FFFFL)
            {
                throw IpvsadmException.fail("invalid fwmark value `" + text + "' specified");
            }
            return (int)(long)mark;
        }

        /** parse_timeout with ipvsadm's message. */
        private static int parseTimeout(final String text, final int min)
        {
            return number(text, min, MAX_TIMEOUT, "invalid timeout value `" + text + "' specified");
        }

        private void mcastGroup(final String text)
        {
            if (text.indexOf(':') >= 0)
            {
                final IpAddress group = ipv6(text);
                if (group == null || (group.high() >>> 56) != 0xFF)
                {
                    throw IpvsadmException.fail("invalid IPv6 mcast-group `" + text + "'");
                }
            }
            else
            {
                final IpAddress group = inetPton4(text);
                if (group == null || (group.v4() >>> 28) != 0xE)
                {
                    throw IpvsadmException.fail("invalid IPv4 mcast-group `" + text + "'");
                }
            }
        }

        /**
         * parse_sched_flags: strtok on commas, each name checked against the scheduler in turn. jvs's own flags
         * (kernel-hash, seed-overload, table-size=N) are accepted too, by {@link SchedulerFlags#parse}.
         */
        private static SchedulerFlags schedulerFlags(final String schedulerName, final String list)
        {
            final List<String> tokens = new ArrayList<>();
            for (final String token : list.split(","))
            {
                if (!token.isEmpty())
                {
                    tokens.add(token);
                }
            }
            if (tokens.isEmpty())
            {
                throw IpvsadmException.fail("invalid scheduler flag `'");
            }
            try
            {
                return SchedulerFlags.parse(String.join(",", tokens), schedulerName);
            }
            catch (final IllegalArgumentException ex)
            {
                throw IpvsadmException.fail(ex.getMessage());
            }
        }

        /**
         * parse_service: an address, in brackets when a port follows an IPv6 one; a port as a number or a service
         * name of the protocol.
         *
         * @return null for SERVICE_NONE.
         */
        private Address parseService(final String text, final Protocol serviceProtocol, final int currentPort)
        {
            if (text == null || isAllDigits(text))
            {
                return null;
            }
            String host = text;
            String portText = null;
            if (text.startsWith("["))
            {
                final int close = text.indexOf(']');
                if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':')
                {
                    return null;
                }
                host = text.substring(1, close);
                portText = text.substring(close + 2);
            }
            final IpAddress v6Address = ipv6(host);
            final IpAddress parsed;
            if (v6Address != null)
            {
                parsed = v6Address;
            }
            else
            {
                // strrchr(buf, ':') inside the brackets: "[1.2.3.4]:80" loses its port, as in ipvsadm.
                final int colon = host.lastIndexOf(':');
                portText = colon >= 0 ? host.substring(colon + 1) : null;
                final String v4 = colon >= 0 ? host.substring(0, colon) : host;
                final IpAddress literal = inetAton(v4);
                parsed = literal != null ? literal : names.hostAddress(v4);
                if (parsed == null || parsed.isV6())
                {
                    return null;
                }
            }
            if (portText == null)
            {
                return new Address(parsed.isV6(), parsed, currentPort, false);
            }
            int number = number(portText, 0, 65535);
            if (number < 0)
            {
                number = names.servicePort(portText, serviceProtocol);
            }
            if (number < 0)
            {
                return null;
            }
            return new Address(parsed.isV6(), parsed, number, true);
        }
    }

    /** What parse_service found. */
    private record Address(boolean v6, IpAddress address, int port, boolean hasPort)
    {
    }

    private static String truncate(final String text, final int max)
    {
        return text.length() > max ? text.substring(0, max) : text;
    }

    /** string_to_number with ipvsadm's failure message. */
    static int number(final String text, final long min, final long max, final String error)
    {
        final int value = number(text, min, max);
        if (value < 0 && min >= 0)
        {
            throw IpvsadmException.fail(error);
        }
        return value;
    }

    /** string_to_number: strtol of the whole string, in range, else -1. */
    static int number(final String text, final long min, final long max)
    {
        final Long value = strtol(text);
        if (value == null || value < min || value > max)
        {
            return -1;
        }
        return (int)(long)value;
    }

    /**
     * strtol(s, &end, 10) that must consume the whole string: leading white space, a sign, at least one digit.
     *
     * @return the value, or null when the text is not all a number or overflows a long (ERANGE).
     */
    static Long strtol(final String text)
    {
        int i = 0;
        while (i < text.length() && isSpace(text.charAt(i)))
        {
            i++;
        }
        boolean negative = false;
        if (i < text.length() && (text.charAt(i) == '+' || text.charAt(i) == '-'))
        {
            negative = text.charAt(i) == '-';
            i++;
        }
        if (i == text.length())
        {
            return null;
        }
        long value = 0;
        for (; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            if (c < '0' || c > '9')
            {
                return null;
            }
            if (value > (Long.MAX_VALUE - (c - '0')) / 10)
            {
                return null;
            }
            value = value * 10 + (c - '0');
        }
        return negative ? -value : value;
    }

    /** atoi: leading digits, 0 when there are none. */
    private static int atoi(final String text)
    {
        int i = 0;
        while (i < text.length() && isSpace(text.charAt(i)))
        {
            i++;
        }
        boolean negative = false;
        if (i < text.length() && (text.charAt(i) == '+' || text.charAt(i) == '-'))
        {
            negative = text.charAt(i) == '-';
            i++;
        }
        long value = 0;
        while (i < text.length() && Character.isDigit(text.charAt(i)) && value < Integer.MAX_VALUE)
        {
            value = value * 10 + (text.charAt(i++) - '0');
        }
        return (int)(negative ? -value : value);
    }

    private static boolean isSpace(final char c)
    {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B;
    }

    private static boolean isAllDigits(final String text)
    {
        for (int i = 0; i < text.length(); i++)
        {
            if (!Character.isDigit(text.charAt(i)))
            {
                return false;
            }
        }
        return true;
    }

    /** inet_pton(AF_INET6): null unless the text is an IPv6 literal. */
    static IpAddress ipv6(final String text)
    {
        // IpAddress.parse trims the text; inet_pton takes no white space ("[2001:db8::1 ]:80" is refused). Every IPv6
        // form has two colons at least (eight groups, or :: for some): an IPv4 address with its port, which every
        // IPv4 service and server is, has one and is no IPv6 address, found without the parser's exception.
        final int colon = text.indexOf(':');
        if (colon < 0 || colon == text.lastIndexOf(':') || text.startsWith("[") || text.indexOf('%') >= 0 ||
            !text.trim().equals(text))
        {
            return null;
        }
        try
        {
            final IpAddress parsed = IpAddress.parse(text);
            return parsed.isV6() ? parsed : null;
        }
        catch (final IllegalArgumentException ex)
        {
            return null;
        }
    }

    /** inet_pton(AF_INET): exactly four decimal parts. */
    private static IpAddress inetPton4(final String text)
    {
        final String[] parts = text.split("\\.", -1);
        if (parts.length != 4)
        {
            return null;
        }
        int value = 0;
        for (final String part : parts)
        {
            if (part.isEmpty() || part.length() > 3 || !isAllDigits(part) ||
                (part.length() > 1 && part.charAt(0) == '0'))
            {
                return null;
            }
            final int octet = Integer.parseInt(part);
            if (octet > 255)
            {
                return null;
            }
            value = value << 8 | octet;
        }
        return IpAddress.ofV4(value);
    }

    /**
     * inet_aton: one to four parts, each decimal, octal (leading 0) or hexadecimal (0x); the last part fills the
     * bytes left ("10.1" is 10.0.0.1). As glibc's, it stops at white space after a part and ignores the rest, so
     * "10.0.0.1 x" is 10.0.0.1 (ipvsadm takes "-t '10.0.0.1 x:80'").
     *
     * @return the address, or null when the text is not one.
     */
    static IpAddress inetAton(final String text)
    {
        int end = 0;
        while (end < text.length() && !isCSpace(text.charAt(end)))
        {
            end++;
        }
        return inetAtonWhole(text.substring(0, end));
    }

    /** isspace(3) in the C locale. */
    private static boolean isCSpace(final char c)
    {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    private static IpAddress inetAtonWhole(final String text)
    {
        final String[] parts = text.split("\\.", -1);
        if (parts.length > 4 || text.isEmpty())
        {
            return null;
        }
        final long[] values = new long[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            final Long value = atonPart(parts[i]);
            if (value == null)
            {
                return null;
            }
            values[i] = value;
        }
        long address = 0;
        for (int i = 0; i < parts.length - 1; i++)
        {
            if (values[i] > 0xFF)
            {
                return null;
            }
            address |= values[i] << (24 - 8 * i);
        }
        final long last = values[parts.length - 1];
        final int remainingBits = 32 - 8 * (parts.length - 1);
        if (remainingBits < 64 && last >= 1L << remainingBits)
        {
            return null;
        }
        return IpAddress.ofV4((int)(address | last));
    }

    private static Long atonPart(final String part)
    {
        if (part.isEmpty())
        {
            return null;
        }
        int radix = 10;
        String digits = part;
        if (part.startsWith("0x") || part.startsWith("0X"))
        {
            radix = 16;
            digits = part.substring(2);
            if (digits.isEmpty())
            {
                return 0L;
            }
        }
        else if (part.startsWith("0") && part.length() > 1)
        {
            radix = 8;
            digits = part.substring(1);
        }
        long value = 0;
        for (int i = 0; i < digits.length(); i++)
        {
            final int digit = Character.digit(digits.charAt(i), radix);
            if (digit < 0)
            {
                return null;
            }
            value = value * radix + digit;
            if (value > 0xFFFF_FFFFL)
            {
                return null;
            }
        }
        return value;
    }
}
