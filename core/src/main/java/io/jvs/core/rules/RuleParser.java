package io.jvs.core.rules;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerKind;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Parses one line of ipvsadm's language, as {@code ipvsadm -S -n} writes it and {@code ipvsadm -R}
 * reads it: {@code -A -t 10.0.0.100:80 -s wrr}, {@code -a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 4}.
 * <p>
 * The command comes first; a word "ipvsadm" anywhere is ignored; long options may be written
 * {@code --weight=3} and short ones {@code -w3}. Defaults and checks are ipvsadm's: scheduler wlc (on
 * -E too), direct routing, weight 1, persistence 360 s, a real server without a port takes the
 * service's, and a DR or TUN server always uses the service's port. Errors carry ipvsadm's wording.
 * Unlike ipvsadm, a line starting with {@code #} is a comment.
 */
public final class RuleParser
{
    private enum Command
    {
        ADD_SERVICE("add-service"),
        EDIT_SERVICE("edit-service"),
        DELETE_SERVICE("delete-service"),
        FLUSH("flush"),
        ADD_SERVER("add-server"),
        EDIT_SERVER("edit-server"),
        DELETE_SERVER("delete-server"),
        SET("set");

        final String label;

        Command(final String label)
        {
            this.label = label;
        }
    }

    private enum Option
    {
        SERVICE("service-address"),
        IPV6("ipv6"),
        SCHEDULER("scheduler"),
        PERSISTENT("persistent"),
        NETMASK("netmask"),
        OPS("ops"),
        PE("pe"),
        SCHED_FLAGS("sched-flags"),
        REAL_SERVER("real-server"),
        FORWARD("forwarding-method"),
        WEIGHT("weight"),
        UPPER("u-threshold"),
        LOWER("l-threshold"),
        TUN_TYPE("tun-type"),
        TUN_PORT("tun-port"),
        TUN_CHECKSUM("tun-checksum");

        final String label;

        Option(final String label)
        {
            this.label = label;
        }
    }

    private static final Set<Option> SERVICE_OPTIONS = EnumSet.of(
        Option.SERVICE, Option.IPV6, Option.SCHEDULER, Option.PERSISTENT, Option.NETMASK, Option.OPS, Option.PE,
        Option.SCHED_FLAGS);
    private static final Set<Option> SERVER_OPTIONS = EnumSet.of(
        Option.SERVICE, Option.IPV6, Option.REAL_SERVER, Option.FORWARD, Option.WEIGHT, Option.UPPER, Option.LOWER,
        Option.TUN_TYPE, Option.TUN_PORT, Option.TUN_CHECKSUM);

    private static final int MAX_TIMEOUT_SECONDS = 86400 * 31;

    private RuleParser()
    {
    }

    /**
     * @param line one line of a rules file.
     * @return the command, or null for a blank or comment line.
     * @throws IllegalArgumentException naming what is wrong with the line.
     */
    public static RuleCommand parse(final String line)
    {
        final List<String> words = new ArrayList<>();
        for (final String word : line.trim().split("\\s+"))
        {
            if (!word.isEmpty() && !"ipvsadm".equals(word))
            {
                words.add(word);
            }
        }
        if (words.isEmpty() || words.get(0).startsWith("#"))
        {
            return null;
        }
        return new LineParser(words).parse();
    }

    /** The state of parsing one line. */
    private static final class LineParser
    {
        private final List<String> words;
        private final Map<Option, String> values = new EnumMap<>(Option.class);
        private final List<String> positional = new ArrayList<>();
        private Command command;
        private Protocol protocol;
        private boolean firewallMarkService;
        private ForwardMethod forwardMethod;

        LineParser(final List<String> words)
        {
            this.words = words;
        }

        RuleCommand parse()
        {
            command = command(words.get(0));
            for (int i = 1; i < words.size(); i++)
            {
                i = option(i);
            }
            check();
            return build();
        }

        private static Command command(final String word)
        {
            return switch (word)
            {
                case "-A", "--add-service" -> Command.ADD_SERVICE;
                case "-E", "--edit-service" -> Command.EDIT_SERVICE;
                case "-D", "--delete-service" -> Command.DELETE_SERVICE;
                case "-C", "--clear" -> Command.FLUSH;
                case "-a", "--add-server" -> Command.ADD_SERVER;
                case "-e", "--edit-server" -> Command.EDIT_SERVER;
                case "-d", "--delete-server" -> Command.DELETE_SERVER;
                case "--set" -> Command.SET;
                case "-L", "-l", "--list", "-S", "--save", "-R", "--restore", "-Z", "--zero", "-h", "--help",
                     "-v", "--version", "--start-daemon", "--stop-daemon" -> throw new IllegalArgumentException(
                    "'" + word + "' does not change the configuration: a rules line is -A, -E, -D, -C, -a, -e, -d or --set");
                default -> throw new IllegalArgumentException(
                    word.startsWith("-") ? "invalid command `" + word + "': a rules line starts with -A, -E, -D, -C, " +
                        "-a, -e, -d or --set" : "unexpected argument " + word);
            };
        }

        /** @return the index of the last word consumed. */
        private int option(final int index)
        {
            String word = words.get(index);
            String attached = null;
            if (word.startsWith("--") && word.indexOf('=') > 0)
            {
                attached = word.substring(word.indexOf('=') + 1);
                word = word.substring(0, word.indexOf('='));
            }
            else if (!word.startsWith("--") && word.startsWith("-") && word.length() > 2)
            {
                attached = word.substring(2);
                word = word.substring(0, 2);
            }
            final String name = word;
            return switch (name)
            {
                case "-t", "--tcp-service" -> service(index, attached, Protocol.TCP, name);
                case "-u", "--udp-service" -> service(index, attached, Protocol.UDP, name);
                case "--sctp-service" -> service(index, attached, Protocol.SCTP, name);
                case "-f", "--fwmark-service" -> service(index, attached, null, name);
                case "-6", "--ipv6" ->
                {
                    if (!firewallMarkService)
                    {
                        throw new IllegalArgumentException("-6 used before -f");
                    }
                    put(Option.IPV6, "");
                    yield index;
                }
                case "-s", "--scheduler" -> value(index, attached, Option.SCHEDULER, name);
                case "-p", "--persistent" ->
                {
                    if (attached != null)
                    {
                        put(Option.PERSISTENT, attached);
                        yield index;
                    }
                    if (index + 1 < words.size() && !words.get(index + 1).startsWith("-"))
                    {
                        put(Option.PERSISTENT, words.get(index + 1));
                        yield index + 1;
                    }
                    put(Option.PERSISTENT, "");
                    yield index;
                }
                case "-M", "--netmask" -> value(index, attached, Option.NETMASK, name);
                case "-o", "--ops" -> flag(index, attached, Option.OPS, name);
                case "--pe" -> value(index, attached, Option.PE, name);
                case "-b", "--sched-flags" -> value(index, attached, Option.SCHED_FLAGS, name);
                case "-r", "--real-server" -> value(index, attached, Option.REAL_SERVER, name);
                case "-g", "--gatewaying" -> forward(index, attached, ForwardMethod.DR, name);
                case "-i", "--ipip" -> forward(index, attached, ForwardMethod.TUN, name);
                case "-m", "--masquerading" -> forward(index, attached, ForwardMethod.NAT, name);
                case "-w", "--weight" -> value(index, attached, Option.WEIGHT, name);
                case "-x", "--u-threshold" -> value(index, attached, Option.UPPER, name);
                case "-y", "--l-threshold" -> value(index, attached, Option.LOWER, name);
                case "--tun-type" -> value(index, attached, Option.TUN_TYPE, name);
                case "--tun-port" -> value(index, attached, Option.TUN_PORT, name);
                case "--tun-nocsum", "--tun-csum", "--tun-remcsum" -> flag(index, attached, Option.TUN_CHECKSUM, name);
                default ->
                {
                    if (name.startsWith("-") && !isNumber(name))
                    {
                        throw new IllegalArgumentException("invalid option `" + words.get(index) + "'");
                    }
                    positional.add(words.get(index));
                    yield index;
                }
            };
        }

        private int service(final int index, final String attached, final Protocol serviceProtocol, final String name)
        {
            final int next = value(index, attached, Option.SERVICE, name);
            protocol = serviceProtocol;
            firewallMarkService = serviceProtocol == null;
            return next;
        }

        private int value(final int index, final String attached, final Option option, final String name)
        {
            if (attached != null)
            {
                put(option, attached);
                return index;
            }
            if (index + 1 >= words.size())
            {
                throw new IllegalArgumentException("option `" + name + "' needs a value");
            }
            put(option, words.get(index + 1));
            return index + 1;
        }

        private int flag(final int index, final String attached, final Option option, final String name)
        {
            if (attached != null)
            {
                throw new IllegalArgumentException("option `" + name + "' takes no value");
            }
            put(option, name);
            return index;
        }

        private int forward(final int index, final String attached, final ForwardMethod method, final String name)
        {
            flag(index, attached, Option.FORWARD, name);
            forwardMethod = method;
            return index;
        }

        private void put(final Option option, final String value)
        {
            if (values.containsKey(option))
            {
                throw new IllegalArgumentException("multiple '" + option.label + "' options specified");
            }
            values.put(option, value);
        }

        private void check()
        {
            final Set<Option> allowed;
            final Set<Option> required;
            switch (command)
            {
                case ADD_SERVICE, EDIT_SERVICE ->
                {
                    allowed = SERVICE_OPTIONS;
                    required = EnumSet.of(Option.SERVICE);
                }
                case DELETE_SERVICE ->
                {
                    allowed = EnumSet.of(Option.SERVICE, Option.IPV6);
                    required = EnumSet.of(Option.SERVICE);
                }
                case ADD_SERVER, EDIT_SERVER ->
                {
                    allowed = SERVER_OPTIONS;
                    required = EnumSet.of(Option.SERVICE, Option.REAL_SERVER);
                }
                case DELETE_SERVER ->
                {
                    allowed = EnumSet.of(Option.SERVICE, Option.IPV6, Option.REAL_SERVER);
                    required = EnumSet.of(Option.SERVICE, Option.REAL_SERVER);
                }
                default ->
                {
                    allowed = EnumSet.noneOf(Option.class);
                    required = EnumSet.noneOf(Option.class);
                }
            }
            for (final Option option : values.keySet())
            {
                if (!allowed.contains(option))
                {
                    throw new IllegalArgumentException(
                        "Illegal '" + option.label + "' option with the '" + command.label + "' command");
                }
            }
            for (final Option option : required)
            {
                if (!values.containsKey(option))
                {
                    throw new IllegalArgumentException(
                        "You need to supply the '" + option.label + "' option for the '" + command.label + "' command");
                }
            }
            if (command == Command.SET)
            {
                if (positional.size() != 3)
                {
                    throw new IllegalArgumentException("--set option requires 3 timeout values");
                }
            }
            else if (!positional.isEmpty())
            {
                throw new IllegalArgumentException("unexpected argument " + positional.get(0));
            }
        }

        private RuleCommand build()
        {
            return switch (command)
            {
                case FLUSH -> new RuleCommand.Clear();
                case SET -> new RuleCommand.SetTimeouts(
                    timeout(positional.get(0)), timeout(positional.get(1)), timeout(positional.get(2)));
                case ADD_SERVICE -> new RuleCommand.AddService(serviceKey(), serviceSettings());
                case EDIT_SERVICE -> new RuleCommand.EditService(serviceKey(), serviceSettings());
                case DELETE_SERVICE -> new RuleCommand.DeleteService(serviceKey());
                case ADD_SERVER, EDIT_SERVER -> putServer(command == Command.EDIT_SERVER);
                case DELETE_SERVER ->
                {
                    final ServiceKey key = serviceKey();
                    final HostPort server = realServer(key);
                    yield new RuleCommand.DeleteServer(key, server.address, server.port);
                }
            };
        }

        private ServiceKey serviceKey()
        {
            final String text = values.get(Option.SERVICE);
            if (firewallMarkService)
            {
                final long mark;
                try
                {
                    mark = Long.parseLong(text);
                }
                catch (final NumberFormatException ex)
                {
                    throw new IllegalArgumentException("invalid fwmark value `" + text + "' specified");
                }
                if (mark < 1 || mark > 0xFFFF_FFFFL)
                {
                    throw new IllegalArgumentException("invalid fwmark value `" + text + "' specified");
                }
                return ServiceKey.ofFirewallMark((int)mark, values.containsKey(Option.IPV6));
            }
            final HostPort hostPort = HostPort.parse(text, "illegal virtual server address[:port] specified");
            return ServiceKey.of(protocol, hostPort.address, hostPort.port);
        }

        private ServiceSettings serviceSettings()
        {
            final ServiceKey key = serviceKey();
            final String scheduler = values.getOrDefault(Option.SCHEDULER, SchedulerKind.DEFAULT_NAME)
                .toLowerCase(Locale.ROOT);
            final SchedulerFlags flags = values.containsKey(Option.SCHED_FLAGS) ?
                SchedulerFlags.parse(values.get(Option.SCHED_FLAGS), scheduler) : SchedulerFlags.NONE;
            final boolean persistent = values.containsKey(Option.PERSISTENT);
            int persistenceSeconds = 0;
            if (persistent)
            {
                final String value = values.get(Option.PERSISTENT);
                persistenceSeconds = value.isEmpty() ? ServiceSettings.DEFAULT_PERSISTENCE_SECONDS :
                    number(value, 1, MAX_TIMEOUT_SECONDS, "invalid timeout value `" + value + "' specified");
            }
            final int netmaskPrefix = netmask(key.v6());
            final boolean onePacket = values.containsKey(Option.OPS);
            if (values.containsKey(Option.PE))
            {
                throw new IllegalArgumentException(
                    "persistence engine `" + values.get(Option.PE) + "' is not supported by jvs");
            }
            if (!key.isFirewallMark() && key.port() == 0 && !persistent)
            {
                throw new IllegalArgumentException("Zero port specified for non-persistent service");
            }
            if (onePacket && !key.isFirewallMark() && key.protocol() != Protocol.UDP)
            {
                throw new IllegalArgumentException("One-Packet Scheduling is only for UDP virtual services");
            }
            return new ServiceSettings(scheduler, flags, persistent, persistenceSeconds, netmaskPrefix, onePacket);
        }

        private int netmask(final boolean v6)
        {
            final String text = values.get(Option.NETMASK);
            if (text == null)
            {
                return v6 ? 128 : 32;
            }
            if (v6)
            {
                return number(text, 1, 128, "illegal ipv6 netmask specified");
            }
            final IpAddress mask;
            try
            {
                mask = IpAddress.parse(text);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("illegal virtual server persistent mask specified");
            }
            final int bits = mask.v4();
            final int prefix = Integer.bitCount(bits);
            if (mask.isV6() || (prefix != 0 && bits != (-1 << (32 - prefix))))
            {
                throw new IllegalArgumentException(
                    "illegal virtual server persistent mask specified (jvs needs a contiguous mask)");
            }
            return prefix;
        }

        private RuleCommand putServer(final boolean edit)
        {
            final ServiceKey key = serviceKey();
            final ForwardMethod method = forwardMethod != null ? forwardMethod : ForwardMethod.DR;
            final HostPort server = realServer(key);
            int port = server.port;
            if (method != ForwardMethod.NAT && !key.isFirewallMark())
            {
                // Without address translation the packet keeps the service's port.
                port = key.port();
            }
            final int weight = values.containsKey(Option.WEIGHT) ?
                number(values.get(Option.WEIGHT), 0, RealServer.MAX_WEIGHT, "illegal weight specified") : 1;
            final int upper = values.containsKey(Option.UPPER) ?
                number(values.get(Option.UPPER), 0, Integer.MAX_VALUE, "illegal u_threshold specified") : 0;
            final int lower = values.containsKey(Option.LOWER) ?
                number(values.get(Option.LOWER), 0, Integer.MAX_VALUE, "illegal l_threshold specified") : 0;
            checkTunnel(method);
            return new RuleCommand.PutServer(edit, key, server.address, port, method, weight, upper, lower);
        }

        private void checkTunnel(final ForwardMethod method)
        {
            final boolean tunnelOptions = values.containsKey(Option.TUN_TYPE) || values.containsKey(Option.TUN_PORT) ||
                values.containsKey(Option.TUN_CHECKSUM);
            if (!tunnelOptions)
            {
                return;
            }
            if (method != ForwardMethod.TUN)
            {
                throw new IllegalArgumentException("Tunnel options conflict with forward method");
            }
            final String tunnelType = values.getOrDefault(Option.TUN_TYPE, "ipip");
            switch (tunnelType)
            {
                case "ipip" ->
                {
                    if (values.containsKey(Option.TUN_PORT))
                    {
                        throw new IllegalArgumentException("Illegal 'tun-port' option with the 'ipip' tunnel type");
                    }
                    if (values.containsKey(Option.TUN_CHECKSUM))
                    {
                        throw new IllegalArgumentException(
                            "Illegal '" + values.get(Option.TUN_CHECKSUM).substring(2) + "' option with the 'ipip' tunnel type");
                    }
                }
                case "gue", "gre" -> throw new IllegalArgumentException(
                    "tunnel type `" + tunnelType + "' is not supported by jvs yet (ipip only)");
                default -> throw new IllegalArgumentException("illegal tunnel type specified");
            }
        }

        private HostPort realServer(final ServiceKey key)
        {
            final HostPort server = HostPort.parse(values.get(Option.REAL_SERVER),
                "illegal real server address[:port] specified");
            return server.hasPort ? server : new HostPort(server.address, key.port(), true);
        }

        private static int timeout(final String text)
        {
            return number(text, 0, MAX_TIMEOUT_SECONDS, "--set option requires 3 timeout values");
        }

        private static int number(final String text, final long min, final long max, final String error)
        {
            if (!isNumber(text))
            {
                throw new IllegalArgumentException(error);
            }
            final long value;
            try
            {
                value = Long.parseLong(text);
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException(error);
            }
            if (value < min || value > max)
            {
                throw new IllegalArgumentException(error);
            }
            return (int)value;
        }

        private static boolean isNumber(final String text)
        {
            final int start = text.startsWith("-") || text.startsWith("+") ? 1 : 0;
            if (text.length() <= start)
            {
                return false;
            }
            for (int i = start; i < text.length(); i++)
            {
                if (!Character.isDigit(text.charAt(i)))
                {
                    return false;
                }
            }
            return true;
        }
    }

    /** An address with an optional port, as ipvsadm writes them. */
    private record HostPort(IpAddress address, int port, boolean hasPort)
    {
        static HostPort parse(final String text, final String error)
        {
            try
            {
                if (text.startsWith("["))
                {
                    final int close = text.indexOf(']');
                    if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':')
                    {
                        throw new IllegalArgumentException(error);
                    }
                    final IpAddress address = IpAddress.parse(text.substring(0, close + 1));
                    return new HostPort(address, port(text.substring(close + 2), error), true);
                }
                final int colons = (int)text.chars().filter(c -> c == ':').count();
                if (colons > 1)
                {
                    return new HostPort(IpAddress.parse(text), 0, false);
                }
                if (colons == 1)
                {
                    final int colon = text.indexOf(':');
                    final IpAddress address = IpAddress.parse(text.substring(0, colon));
                    if (address.isV6())
                    {
                        throw new IllegalArgumentException(error);
                    }
                    return new HostPort(address, port(text.substring(colon + 1), error), true);
                }
                return new HostPort(IpAddress.parse(text), 0, false);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(error + ": " + text);
            }
        }

        private static int port(final String text, final String error)
        {
            if (text.isEmpty() || text.length() > 5 || !text.chars().allMatch(Character::isDigit))
            {
                throw new IllegalArgumentException(error);
            }
            final int port = Integer.parseInt(text);
            if (port > 65535)
            {
                throw new IllegalArgumentException(error);
            }
            return port;
        }
    }
}
