package io.jvs.forwarder.replay;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What a replay needs besides the rules: the box's ports and next hops, the kernel-style policy switches
 * and the connection timeouts. Read from a small line-oriented file (one statement a line, {@code #}
 * comments), every statement optional:
 * <pre>
 * port 0 mac 02:00:00:00:00:10 mtu 1500 ipv4 192.0.2.1 ipv6 2001:db8::1
 * gateway mac 02:00:00:00:00:fe [port 0] [family ipv4|ipv6|both]
 * neighbour 192.168.10.1 mac 02:00:00:00:01:01 [port 0]
 * set sloppy_tcp 1          # the IPVS sysctls by name, and jvs's own switches
 * timeout tcp 900 tcpfin 120 udp 300
 * </pre>
 * Without a file (or for what it leaves out) the defaults match {@code tools/jvs synth}'s traces: one port
 * with MAC {@link #DEFAULT_PORT_MAC} and the documentation addresses 192.0.2.1 and 2001:db8::1, the
 * router {@link #DEFAULT_GATEWAY_MAC} as gateway for both families, every real server on port 0 at a MAC
 * made from its address ({@link #derivedMac}), the kernel's defaults for the switches and timeouts.
 *
 * @param topology the ports and next hops (real servers not named in the file get derived MACs later).
 * @param settings the policy switches.
 * @param timeouts tcp, tcpfin and udp seconds, 0 for the default.
 * @param source   where it came from, for the report ("defaults" or the file).
 */
public record ReplayConfig(Topology topology, DataPlaneSettings settings, int[] timeouts, String source)
{
    /** The balancer's MAC when no configuration names one (the destination MAC of synth's frames). */
    public static final long DEFAULT_PORT_MAC = 0x02_00_00_00_00_10L;
    /** The gateway's MAC when no configuration names one (the source MAC of synth's frames). */
    public static final long DEFAULT_GATEWAY_MAC = 0x02_00_00_00_00_FEL;
    private static final IpAddress DEFAULT_IPV4 = IpAddress.parse("192.0.2.1");
    private static final IpAddress DEFAULT_IPV6 = IpAddress.parse("2001:db8::1");

    /**
     * @return the configuration used without a file.
     */
    public static ReplayConfig defaults()
    {
        final Topology topology = new Topology.Builder()
            .port(0, DEFAULT_PORT_MAC, 1500, DEFAULT_IPV4, DEFAULT_IPV6)
            .gatewayV4(0, DEFAULT_GATEWAY_MAC)
            .gatewayV6(0, DEFAULT_GATEWAY_MAC)
            .build();
        return new ReplayConfig(topology, DataPlaneSettings.defaults(), new int[3], "defaults");
    }

    /**
     * A locally administered MAC made from an address, for real servers the configuration does not name:
     * 02:6a:xx:xx:xx:xx with the low 32 bits of the address (IPv4) or of its fold (IPv6).
     */
    public static long derivedMac(final IpAddress address)
    {
        final long bits = address.isV6() ? (address.high() ^ address.low() ^ (address.low() >>> 32)) : address.v4();
        return 0x02_6A_00_00_00_00L | (bits & 0xFFFF_FFFFL);
    }

    /**
     * Reads a configuration file.
     *
     * @throws RuleException naming the file and line of the first statement it refuses, and why.
     */
    public static ReplayConfig load(final Path file) throws IOException, RuleException
    {
        return parse(file.toString(), Files.readAllLines(file, StandardCharsets.UTF_8));
    }

    /**
     * @param source a label for messages, usually the file name.
     * @param lines  the statements.
     * @throws RuleException naming source and line of the first statement refused, and why.
     */
    public static ReplayConfig parse(final String source, final List<String> lines) throws RuleException
    {
        final ReplayConfigParser parser = new ReplayConfigParser();
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            final int hash = line.indexOf('#');
            final String text = (hash >= 0 ? line.substring(0, hash) : line).trim();
            if (text.isEmpty())
            {
                continue;
            }
            try
            {
                parser.statement(text.toLowerCase(Locale.ROOT).split("\\s+"));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RuleException(source, i + 1, ex.getMessage());
            }
        }
        try
        {
            return new ReplayConfig(parser.topology(), parser.settings(), parser.timeouts(), source);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RuleException(source, lines.size(), ex.getMessage());
        }
    }

    /**
     * @return the timeouts these settings ask for, as the pipeline keeps them.
     */
    public ConnectionTimeouts connectionTimeouts()
    {
        final ConnectionTimeouts result = new ConnectionTimeouts();
        result.set(timeouts[0], timeouts[1], timeouts[2]);
        return result;
    }
}
