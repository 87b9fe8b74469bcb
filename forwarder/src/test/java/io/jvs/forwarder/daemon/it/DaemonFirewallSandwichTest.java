package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.FirewallSandwich.Conversation;
import io.jvs.forwarder.daemon.it.FirewallSandwich.Firewall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The firewall cluster of {@link FirewallSandwich} (sh out, dh back, as the LVS scheduling article pairs them)
 * with two daemons: jvs A spreads the clients' requests over three stateful firewalls by source hash with
 * direct routing; jvs B balances them onto the servers and sends every reply (one mark statement, one fwmark
 * service) by destination hash back to a firewall. With the same firewalls in
 * the same order, sh on the client's address and dh on the same address pick the same one, so both
 * directions of every flow must cross the same firewall: asserted per conversation from the firewalls' flow
 * counters. Both daemons share this machine's two cores, so both idle politely (the adaptive default).
 */
class DaemonFirewallSandwichTest
{
    private static final int PORT = 8080;
    private static final String AFXDP = "afxdp xdp-mode drv";
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @Test
    void shouldSendBothDirectionsOfEveryFlowThroughTheSameFirewall() throws Exception
    {
        try (FirewallSandwich sandwich = FirewallSandwich.builder("fwjvs").ipv6(false).servers(2).clientAddresses(6)
            .vip(true).build())
        {
            DaemonConfigs.sendersComputeChecksums(sandwich);
            // A's kernel routes the replies back out to the clients: jvs passes what no service takes.
            Netns.forwarding(sandwich.balancerA().namespace(), true);
            sandwich.startTcpServers(PORT, false);
            final String vip = sandwich.vip4().getHostAddress();
            final List<Firewall> firewalls = sandwich.firewalls();
            final List<InetAddress> firewallsOutside = firewalls.stream()
                .map(firewall -> (InetAddress)firewall.outside().ipv4()).toList();
            final List<InetAddress> firewallsInside = firewalls.stream()
                .map(firewall -> (InetAddress)firewall.inside().ipv4()).toList();
            final int[] ones = DaemonConfigs.ones(firewalls.size());
            final String outside = DaemonConfigs.interfaces(AFXDP, FirewallSandwich.A_OUTSIDE_DEVICE,
                FirewallSandwich.A_INSIDE_DEVICE) + "workers 1\n" +
                "mark 1 in " + FirewallSandwich.A_OUTSIDE_DEVICE + " dst " + vip + "\n" +
                DaemonConfigs.fwmarkService(1, "sh", 'g', firewallsOutside, ones);
            final String inside = DaemonConfigs.interfaces(AFXDP, FirewallSandwich.B_OUTSIDE_DEVICE,
                FirewallSandwich.B_INSIDE_DEVICE) + "workers 1\n" +
                "set sloppy_tcp 1\n" +
                DaemonConfigs.service('t', sandwich.vip4(), PORT, "rr", 'g', DaemonConfigs.serversV4(sandwich),
                    DaemonConfigs.ones(sandwich.servers().size())) +
                "mark 2 in " + FirewallSandwich.B_INSIDE_DEVICE + " src " + vip + "\n" +
                DaemonConfigs.fwmarkService(2, "dh", 'g', firewallsInside, ones);
            final Path a = Files.createDirectories(directory.resolve("a"));
            final Path b = Files.createDirectories(directory.resolve("b"));
            try (DaemonProcess jvsA = DaemonProcess.start(sandwich.balancerA().namespace(), a, outside);
                DaemonProcess jvsB = DaemonProcess.start(sandwich.balancerB().namespace(), b, inside))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(sandwich.outsideNamespace(),
                    TcpDigestClient.Load.of(sandwich.service(sandwich.vip4(), PORT), 18, MIB).parallel(3)
                        .sources(sandwich.clientAddresses4()));
                final Map<String, Long> statusA = jvsA.status();
                final Map<String, Long> statusB = jvsB.status();
                assertThat(TcpDigestClient.failures(connections)).as("A: %s\n%s\nB: %s\n%s", jvsA.log(), statusA,
                    jvsB.log(), statusB).isEmpty();
                final List<Conversation> expected = connections.stream().map(Conversation::of).toList();
                assertThat(sandwich.symmetryProblems(expected)).isEmpty();
                final Map<String, List<Conversation>> byFirewall = sandwich.conversationsByFirewall();
                for (final Firewall firewall : sandwich.firewalls())
                {
                    assertThat(byFirewall.get(firewall.name())).as("conversations through %s", firewall.name())
                        .isNotEmpty();
                }
                assertThat(statusA.get("connections")).isEqualTo(18);
                assertThat(statusB.get("connections")).as("the requests' and the replies' connections")
                    .isEqualTo(36);
            }
        }
    }
}
