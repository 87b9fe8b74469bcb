package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.FirewallSandwich.Conversation;
import io.jvs.forwarder.daemon.it.FirewallSandwich.Firewall;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seeds' firewall cluster with two daemons: jvs A spreads the clients' requests over three stateful
 * firewalls by source hash with direct routing; jvs B balances them onto the servers and sends every reply
 * (one mark statement, one fwmark service) by destination hash back to a firewall. With the same firewalls in
 * the same order, sh on the client's address and dh on the same address pick the same one, so both
 * directions of every flow must cross the same firewall: asserted per conversation from the firewalls' flow
 * counters. Both daemons share this machine's two cores, so both idle politely (the adaptive default).
 */
class DaemonFirewallSandwichTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @Test
    void shouldSendBothDirectionsOfEveryFlowThroughTheSameFirewall() throws Exception
    {
        try (FirewallSandwich sandwich = FirewallSandwich.builder("fwjvs").ipv6(false).servers(2).clientAddresses(6)
            .vip(true).build())
        {
            sandwich.inNamespace(sandwich.outsideNamespace(), "ethtool", "-K", FirewallSandwich.CLIENT_DEVICE, "tx",
                "off");
            for (final Host server : sandwich.servers())
            {
                sandwich.inNamespace(server.namespace(), "ethtool", "-K", FirewallSandwich.SERVER_DEVICE, "tx", "off");
            }
            // A's kernel routes the replies back out to the clients: jvs passes what no service takes.
            Netns.forwarding(sandwich.balancerA().namespace(), true);
            sandwich.startTcpServers(PORT, false);
            final String vip = sandwich.vip4().getHostAddress();
            final StringBuilder outside = new StringBuilder()
                .append("interface ").append(FirewallSandwich.A_OUTSIDE_DEVICE).append(" port afxdp xdp-mode drv\n")
                .append("interface ").append(FirewallSandwich.A_INSIDE_DEVICE).append(" port afxdp xdp-mode drv\n")
                .append("workers 1\n")
                .append("mark 1 in ").append(FirewallSandwich.A_OUTSIDE_DEVICE).append(" dst ").append(vip).append('\n')
                .append("-A -f 1 -s sh\n");
            final StringBuilder inside = new StringBuilder()
                .append("interface ").append(FirewallSandwich.B_OUTSIDE_DEVICE).append(" port afxdp xdp-mode drv\n")
                .append("interface ").append(FirewallSandwich.B_INSIDE_DEVICE).append(" port afxdp xdp-mode drv\n")
                .append("workers 1\n")
                .append("set sloppy_tcp 1\n")
                .append("-A -t ").append(vip).append(':').append(PORT).append(" -s rr\n");
            for (final Host server : sandwich.servers())
            {
                inside.append("-a -t ").append(vip).append(':').append(PORT).append(" -r ")
                    .append(server.ipv4().getHostAddress()).append(':').append(PORT).append(" -g -w 1\n");
            }
            inside.append("mark 2 in ").append(FirewallSandwich.B_INSIDE_DEVICE).append(" src ").append(vip)
                .append('\n').append("-A -f 2 -s dh\n");
            for (final Firewall firewall : sandwich.firewalls())
            {
                outside.append("-a -f 1 -r ").append(firewall.outside().ipv4().getHostAddress()).append(":0 -g -w 1\n");
                inside.append("-a -f 2 -r ").append(firewall.inside().ipv4().getHostAddress()).append(":0 -g -w 1\n");
            }
            final Path a = Files.createDirectories(directory.resolve("a"));
            final Path b = Files.createDirectories(directory.resolve("b"));
            try (DaemonProcess jvsA = DaemonProcess.start(sandwich.balancerA().namespace(), a, outside.toString());
                DaemonProcess jvsB = DaemonProcess.start(sandwich.balancerB().namespace(), b, inside.toString()))
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
