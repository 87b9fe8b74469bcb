package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fwmark service whose {@code mark} statement names a network, not a host: {@code mark 1 dst 203.0.113.0/24}
 * with {@code -f 1} NAT onto two real servers. The client routes 203.0.113.0/24 (and 203.0.114.0/24 beside it)
 * through the director; nothing holds those addresses. UDP to two addresses of the prefix is steered to jvs by
 * the programs' destination-prefix trie (XDP over AF_XDP; over AF_PACKET, which sees every frame, the tcx steal
 * program drops the kernel's copy, which the director's kernel would otherwise count as an address error),
 * marked, shared by rr and answered from the address it was sent to; UDP to 203.0.114.7, outside the prefix, stays the
 * kernel's: the director's kernel, which does not forward, counts it as an address error, and jvs neither takes
 * it nor hands it to the host. Root only (namespaces, XDP), as CI runs.
 */
class DaemonMarkedPrefixTest
{
    private static final int PORT = 8080;
    private static final String PREFIX = "203.0.113.0/24";
    private static final String BESIDE = "203.0.114.0/24";
    private static final String OUTSIDE = "203.0.114.7";
    private static final int REQUESTS = 10;

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldSteerEveryAddressOfAMarkedNetworkToItsFwmarkServiceAndLeaveTheRestToTheKernel(final String port)
        throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dmnet").mode(Mode.NAT).realServers(2).ipv6(false)
            .clientAddresses(2).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final String director = LbTopology.DIRECTOR_CLIENT_DEVICE;
            final String via = topology.directorClientSide().orElseThrow().ipv4().getHostAddress();
            Netns.ip(topology.clientNamespace(), "route", "add", PREFIX, "via", via);
            Netns.ip(topology.clientNamespace(), "route", "add", BESIDE, "via", via);
            final String config = DaemonConfigs.twoArm(port) +
                "mark 1 in " + director + " dst " + PREFIX + "\n" +
                DaemonConfigs.fwmarkService(1, "rr", 'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(2));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                // Warmed, IPv6 and fwmark services too, by a scratch worker that leaves the live one nothing: no
                // connection, no frame sent.
                assertThat(daemon.log()).anySatisfy(line -> assertThat(line).contains("warmed the data path"))
                    .noneSatisfy(line -> assertThat(line).contains("the warm-up sends nothing"));
                assertThat(daemon.status()).containsEntry("connections", 0L).containsEntry("transmitted", 0L);
                final Map<String, Integer> byServer = new TreeMap<>();
                final long errorsBefore = addressErrors(topology);
                // Each target from a client address of its own: a client port the kernel reuses for the second
                // target would otherwise make two connections whose replies (from the same real server to the same
                // client address and port) no NAT director can tell apart, IPVS's neither.
                final List<String> targets = List.of("203.0.113.7", "203.0.113.200");
                for (int t = 0; t < targets.size(); t++)
                {
                    final String target = targets.get(t);
                    final List<UdpDigestClient.Exchange> exchanges = UdpDigestClient.run(topology.clientNamespace(),
                        UdpDigestClient.Load.of(new InetSocketAddress(InetAddress.getByName(target), PORT), REQUESTS,
                            600).sources(List.of(topology.clientAddresses4().get(t))));
                    for (final UdpDigestClient.Exchange exchange : exchanges)
                    {
                        assertThat(exchange.ok()).as("to %s: %s\n%s\n%s", target, exchange,
                            String.join("\n", daemon.log()), daemon.status()).isTrue();
                        byServer.merge(exchange.serverIdentity(), 1, Integer::sum);
                    }
                }
                assertThat(byServer).containsOnlyKeys("rs1", "rs2").allSatisfy((name, count) ->
                    assertThat(count).isEqualTo(REQUESTS));
                assertThat(addressErrors(topology) - errorsBefore)
                    .as("the kernel's copies were stolen (AF_PACKET) or never made (AF_XDP)").isZero();
                final Map<String, Long> served = daemon.status();
                assertThat(served.get("connections")).isGreaterThanOrEqualTo(2 * REQUESTS);
                assertThat(DaemonConfigs.drops(served)).as(String.join("\n", daemon.log())).isEmpty();
                assertThat(String.join("\n", daemon.log())).doesNotContain("mark 1");

                final long addressErrors = addressErrors(topology);
                final List<UdpDigestClient.Exchange> outside = UdpDigestClient.run(topology.clientNamespace(),
                    UdpDigestClient.Load.of(new InetSocketAddress(InetAddress.getByName(OUTSIDE), PORT), 2, 600)
                        .timeout(Duration.ofMillis(300), 3));
                final Map<String, Long> after = daemon.status();
                assertThat(outside).noneMatch(UdpDigestClient.Exchange::ok);
                assertThat(addressErrors(topology) - addressErrors).as("the director's kernel had them")
                    .isGreaterThanOrEqualTo(6);
                assertThat(after.get("host-passed")).as("jvs handed the host nothing: %s", after)
                    .isEqualTo(served.get("host-passed"));
                assertThat(after.get("connections")).isEqualTo(served.get("connections"));
                if (port.startsWith("afxdp"))
                {
                    assertThat(after.get("rx-frames")).as("the XDP program redirected none of them")
                        .isEqualTo(served.get("rx-frames"));
                }
            }
        }
    }

    /** {@code Ip: InAddrErrors} of the director: datagrams to an address it neither holds nor forwards to. */
    private static long addressErrors(final LbTopology topology)
    {
        return Netns.snmp(topology.directorNamespace(), "Ip", "InAddrErrors");
    }
}
