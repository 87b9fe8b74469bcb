package io.jvs.forwarder.replay;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.MarkRule;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleException;
import io.jvs.forwarder.config.JvsConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * What a replay takes from a configuration file ({@link JvsConfig}, the daemon's language, read by the one
 * parser): the box's ports and next hops, the kernel-style policy switches, the connection timeouts, the
 * {@code mark} rules and, when the file gives them, the services. Every statement is optional; the daemon's
 * own ({@code interface}, {@code workers}, {@code idle}, {@code connections}, {@code control},
 * {@code vip-arp}) are accepted and, but for the ports that {@code interface} statements make, not used:
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
 * made from its address ({@link #derivedMac}), the kernel's defaults for the switches and timeouts. Port i
 * of an {@code interface} statement that no {@code port} statement describes gets MAC
 * {@link #DEFAULT_PORT_MAC} + i and port 0's addresses: a replay has no devices to ask.
 *
 * @param config   the configuration as the file says it.
 * @param topology the ports and next hops with the defaults filled in (real servers not named in the file
 *                 get derived MACs later).
 */
public record ReplayConfig(JvsConfig config, Topology topology)
{
    /** The balancer's MAC when no configuration names one (the destination MAC of synth's frames). */
    public static final long DEFAULT_PORT_MAC = 0x02_00_00_00_00_10L;
    /** The gateway's MAC when no configuration names one (the source MAC of synth's frames). */
    public static final long DEFAULT_GATEWAY_MAC = 0x02_00_00_00_00_FEL;
    private static final IpAddress DEFAULT_IPV4 = IpAddress.parse("192.0.2.1");
    private static final IpAddress DEFAULT_IPV6 = IpAddress.parse("2001:db8::1");
    private static final int DEFAULT_MTU = 1500;

    /**
     * @return the configuration used without a file.
     */
    public static ReplayConfig defaults()
    {
        return of(JvsConfig.defaults());
    }

    /**
     * @param config a parsed configuration.
     * @return the replay's view of it, defaults filled in.
     */
    public static ReplayConfig of(final JvsConfig config)
    {
        final Topology.Port[] ports = new Topology.Port[config.portCount()];
        for (final Topology.Port port : config.ports())
        {
            ports[port.index()] = port;
        }
        final Topology.Builder builder = new Topology.Builder();
        for (int i = 0; i < ports.length; i++)
        {
            final Topology.Port port = ports[i];
            if (port == null)
            {
                builder.port(i, DEFAULT_PORT_MAC + i, DEFAULT_MTU, DEFAULT_IPV4, DEFAULT_IPV6);
            }
            else
            {
                builder.port(i, port.mac(), port.mtu(), port.ipv4(), port.ipv6());
            }
        }
        config.neighbours().forEach((address, hop) -> builder.neighbour(address, hop.port(), hop.mac()));
        final Topology.Neighbour v4 = config.gatewayV4();
        final Topology.Neighbour v6 = config.gatewayV6();
        builder.gatewayV4(v4 == null ? 0 : v4.port(), v4 == null ? DEFAULT_GATEWAY_MAC : v4.mac());
        builder.gatewayV6(v6 == null ? 0 : v6.port(), v6 == null ? DEFAULT_GATEWAY_MAC : v6.mac());
        return new ReplayConfig(config, builder.build());
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
     * Reads a configuration file ({@link JvsConfig#load}).
     *
     * @throws RuleException naming the file and line of the first statement it refuses, and why.
     */
    public static ReplayConfig load(final Path file) throws IOException, RuleException
    {
        return of(JvsConfig.load(file));
    }

    /**
     * @param source a label for messages, usually the file name.
     * @param lines  the statements; {@code rules} statements are relative to the working directory.
     * @throws RuleException naming source and line of the first statement refused, and why.
     */
    public static ReplayConfig parse(final String source, final List<String> lines) throws RuleException
    {
        return of(JvsConfig.parse(source, lines, Path.of("")));
    }

    /**
     * @return where it came from, for the report ("defaults" or the file).
     */
    public String source()
    {
        return config.source();
    }

    /**
     * @return the policy switches.
     */
    public DataPlaneSettings settings()
    {
        return config.settings();
    }

    /**
     * @return the timeouts these settings ask for, as the pipeline keeps them.
     */
    public ConnectionTimeouts connectionTimeouts()
    {
        return config.connectionTimeouts();
    }

    /**
     * @return the {@code mark} statements in order, which the pipeline applies to frames without a mark (a
     *         replay's {@code --fwmark} marks every frame before them).
     */
    public List<MarkRule> markRules()
    {
        return config.markRules();
    }
}
