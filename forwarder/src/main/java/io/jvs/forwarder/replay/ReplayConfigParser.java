package io.jvs.forwarder.replay;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.Topology;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The statements of a {@link ReplayConfig} file, one call per line; each refusal is an
 * {@link IllegalArgumentException} whose message says what is wrong with the line.
 */
final class ReplayConfigParser
{
    private final Map<Integer, Topology.Port> ports = new LinkedHashMap<>();
    private final Map<IpAddress, Topology.Neighbour> neighbours = new LinkedHashMap<>();
    private Topology.Neighbour gatewayV4 = new Topology.Neighbour(0, ReplayConfig.DEFAULT_GATEWAY_MAC);
    private Topology.Neighbour gatewayV6 = new Topology.Neighbour(0, ReplayConfig.DEFAULT_GATEWAY_MAC);
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
    private final int sweepSlotsPerBurst;

    ReplayConfigParser()
    {
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
        sweepSlotsPerBurst = defaults.sweepSlotsPerBurst();
    }

    void statement(final String[] words)
    {
        switch (words[0])
        {
            case "port" -> port(words);
            case "gateway" -> gateway(words);
            case "neighbour", "neighbor" -> neighbour(words);
            case "set" -> set(words);
            case "timeout" -> timeout(words);
            default -> throw new IllegalArgumentException("unknown statement \"" + words[0] +
                "\" (port, gateway, neighbour, set, timeout)");
        }
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
            final String value = value(words, i);
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
    }

    private void gateway(final String[] words)
    {
        long mac = -1;
        int port = 0;
        String family = "both";
        for (int i = 1; i < words.length; i += 2)
        {
            final String value = value(words, i);
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
        }
        if (!family.equals("ipv4"))
        {
            gatewayV6 = hop;
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
            final String value = value(words, i);
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
            default -> throw new IllegalArgumentException("set: unknown switch \"" + name + "\" (pass_unmatched, " +
                "allow_ip_options, allow_fragments, expire_nodest_conn, expire_quiescent_template, sloppy_tcp, " +
                "conn_reuse_mode, active_established_only, clamp_mss, icmp_replies_per_second)");
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
            switch (words[i])
            {
                case "tcp" -> timeouts[0] = seconds;
                case "tcpfin" -> timeouts[1] = seconds;
                case "udp" -> timeouts[2] = seconds;
                default -> throw new IllegalArgumentException("timeout: unknown name \"" + words[i] +
                    "\" (tcp, tcpfin, udp)");
            }
        }
    }

    Topology topology()
    {
        final Topology.Builder builder = new Topology.Builder();
        if (ports.isEmpty())
        {
            final Topology.Port port = ReplayConfig.defaults().topology().ports().get(0);
            builder.port(0, port.mac(), port.mtu(), port.ipv4(), port.ipv6());
        }
        for (final Topology.Port port : ports.values())
        {
            builder.port(port.index(), port.mac(), port.mtu(), port.ipv4(), port.ipv6());
        }
        neighbours.forEach((address, hop) -> builder.neighbour(address, hop.port(), hop.mac()));
        builder.gatewayV4(gatewayV4.port(), gatewayV4.mac());
        builder.gatewayV6(gatewayV6.port(), gatewayV6.mac());
        final Topology topology = builder.build();
        final int portCount = topology.ports().size();
        for (final Map.Entry<IpAddress, Topology.Neighbour> entry : topology.neighbours().entrySet())
        {
            if (entry.getValue().port() >= portCount)
            {
                throw new IllegalArgumentException("neighbour " + entry.getKey() + " is on port " +
                    entry.getValue().port() + ", which is not defined");
            }
        }
        if (gatewayV4.port() >= portCount || gatewayV6.port() >= portCount)
        {
            throw new IllegalArgumentException("the gateway is on a port that is not defined");
        }
        return topology;
    }

    DataPlaneSettings settings()
    {
        return new DataPlaneSettings(passUnmatched, allowIpOptions, allowFragments, expireNodestConn,
            expireQuiescentTemplate, sloppyTcp, connReuse, activeEstablishedOnly, icmpRepliesPerSecond, clampMss,
            sweepSlotsPerBurst);
    }

    int[] timeouts()
    {
        return timeouts.clone();
    }

    private static String value(final String[] words, final int i)
    {
        if (i + 1 >= words.length)
        {
            throw new IllegalArgumentException(words[0] + ": \"" + words[i] + "\" needs a value");
        }
        return words[i + 1];
    }

    private static int integer(final String[] words, final int i, final String what, final int min, final int max)
    {
        if (i >= words.length)
        {
            throw new IllegalArgumentException(words[0] + ": needs " + what);
        }
        try
        {
            final int value = Integer.parseInt(words[i]);
            if (value < min || value > max)
            {
                throw new IllegalArgumentException(words[0] + ": " + what + " must be " + min + ".." + max + ", not " +
                    value);
            }
            return value;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(words[0] + ": " + what + " must be a number, not \"" + words[i] + "\"");
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
