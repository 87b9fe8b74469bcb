package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.jvs.forwarder.daemon.it.FirewallSandwich.Conversation;
import io.jvs.forwarder.daemon.it.FirewallSandwich.Firewall;
import io.jvs.forwarder.daemon.it.FirewallSandwich.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The firewall sandwich with kernel policy routes standing in for the two balancers: it routes end to end
 * through the firewalls, each firewall's flow counters show which conversations crossed it, and the
 * symmetry check passes when both balancers pick the same firewall per client and names every
 * conversation whose answers come back through another. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FirewallSandwichTest
{
    private static final int PORT = 8080;
    private static final int UDP_PORT = 5353;
    private static final int MIB = 1 << 20;

    @Test
    void shouldCarryEveryConversationThroughOneFirewallBothWaysWhenBothBalancersPickTheSameOne()
    {
        try (FirewallSandwich sandwich = FirewallSandwich.builder("fwsym").build())
        {
            // Client i (198.51.100.10 + i) in through fw(i + 1) and back through fw(i + 1): sh and dh agreeing.
            final List<InetAddress> clients = new ArrayList<>(sandwich.clientAddresses4());
            clients.addAll(sandwich.clientAddresses6());
            kernelBalancers(sandwich, clients, index -> index % 3 + 1, index -> index % 3 + 1);
            sandwich.startTcpServers(PORT, false);
            sandwich.startUdpServers(UDP_PORT);

            final List<TcpDigestClient.Connection> connections = new ArrayList<>(
                TcpDigestClient.run(sandwich.outsideNamespace(), TcpDigestClient.Load.of(
                    sandwich.service(sandwich.vip4(), PORT), 12, MIB).sources(sandwich.clientAddresses4())));
            connections.addAll(TcpDigestClient.run(sandwich.outsideNamespace(), TcpDigestClient.Load.of(
                sandwich.service(sandwich.vip6(), PORT), 3, MIB).sources(sandwich.clientAddresses6())));
            final InetSocketAddress udpService = sandwich.service(sandwich.vip4(), UDP_PORT);
            final List<UdpDigestClient.Exchange> exchanges = UdpDigestClient.run(sandwich.outsideNamespace(),
                UdpDigestClient.Load.of(udpService, 6, 300).sources(sandwich.clientAddresses4()));

            assertThat(TcpDigestClient.failures(connections)).isEmpty();
            assertThat(connections).extracting(TcpDigestClient.Connection::serverIdentity).containsOnly("in1");
            assertThat(exchanges).allSatisfy(exchange -> assertThat(exchange.ok()).as(exchange.failure()).isTrue());
            final List<Conversation> expected = new ArrayList<>(connections.stream().map(Conversation::of).toList());
            exchanges.forEach(exchange -> expected.add(Conversation.of(exchange, udpService)));
            assertThat(sandwich.symmetryProblems(expected)).isEmpty();
            final Map<String, List<Conversation>> byFirewall = sandwich.conversationsByFirewall();
            for (final Conversation conversation : expected)
            {
                final int client = clients.indexOf(conversation.outside().getAddress());
                assertThat(byFirewall.get("fw" + (client % 3 + 1))).contains(conversation);
            }
            for (final Firewall firewall : sandwich.firewalls())
            {
                assertThat(byFirewall.get(firewall.name())).as(firewall.name()).hasSize(7);
            }
        }
    }

    @Test
    void shouldNameEveryConversationWhoseAnswersComeBackThroughAnotherFirewall()
    {
        try (FirewallSandwich sandwich = FirewallSandwich.builder("fwasym").ipv6(false).servers(1).build())
        {
            kernelBalancers(sandwich, List.copyOf(sandwich.clientAddresses4()), index -> 1, index -> 2);
            sandwich.startTcpServers(PORT, false);

            final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(sandwich.outsideNamespace(),
                TcpDigestClient.Load.of(sandwich.service(sandwich.vip4(), PORT), 6, MIB / 4)
                    .sources(sandwich.clientAddresses4()));

            assertThat(TcpDigestClient.failures(connections)).as("plain routers carry an asymmetric path").isEmpty();
            final List<Conversation> expected = connections.stream().map(Conversation::of).toList();
            assertThat(sandwich.symmetryProblems(expected)).hasSize(6).allSatisfy(problem ->
                assertThat(problem).endsWith("in through [fw1], out through [fw2]"));
            final Map<Conversation, Path> paths = sandwich.paths();
            assertThat(expected).allSatisfy(conversation ->
            {
                assertThat(paths.get(conversation).inbound()).containsOnlyKeys("fw1");
                assertThat(paths.get(conversation).outbound()).containsOnlyKeys("fw2");
                assertThat(paths.get(conversation).firewall()).isNull();
            });
            assertThat(sandwich.conversationsByFirewall().values()).allSatisfy(list -> assertThat(list).isEmpty());
            assertThat(sandwich.firewall(3).fromOutside().flows()).isEmpty();
            assertThat(sandwich.firewall(3).fromInside().flows()).isEmpty();
        }
    }

    @Test
    void shouldReportAConversationNoFirewallSaw()
    {
        try (FirewallSandwich sandwich = FirewallSandwich.builder("fwnone").ipv6(false).firewalls(1).servers(1)
            .clientAddresses(1).build())
        {
            final Conversation never = new Conversation(TestPackets.IPPROTO_TCP,
                new InetSocketAddress(sandwich.client().ipv4(), 40000), sandwich.service(sandwich.vip4(), PORT));

            assertThat(sandwich.symmetryProblems(List.of(never))).containsExactly(never + ": crossed no firewall");
            assertThat(sandwich.firewall(1).outside().ipv4().getHostAddress()).isEqualTo("10.1.0.11");
            assertThat(sandwich.firewall(1).inside().ipv4().getHostAddress()).isEqualTo("10.2.0.11");
            assertThat(sandwich.balancerA().outside().name()).isEqualTo("ao");
            assertThat(sandwich.balancerB().inside().ipv4().getHostAddress()).isEqualTo("10.3.0.1");
            assertThat(Netns.readSysctl(sandwich.balancerA().namespace(), "net.ipv4.ip_forward")).isEqualTo("0");
            assertThat(Netns.readSysctl(sandwich.firewall(1).namespace(), "net.ipv4.ip_forward")).isEqualTo("1");
        }
    }

    /** Chooses a firewall for the {@code index}-th client address. */
    private interface Choice
    {
        int firewall(int index);
    }

    /**
     * Policy routes in place of jvs A and jvs B: lbA sends what client {@code i} sends in through
     * {@code in.firewall(i)}, lbB sends what goes back to it out through {@code out.firewall(i)}, and lbB
     * reaches the VIP on in1 (DR: the frame to in1's MAC, the VIP left as it is).
     */
    private static void kernelBalancers(final FirewallSandwich sandwich, final List<InetAddress> clients,
        final Choice in, final Choice out)
    {
        final String lbA = sandwich.balancerA().namespace();
        final String lbB = sandwich.balancerB().namespace();
        Netns.forwarding(lbA, true);
        Netns.forwarding(lbB, true);
        final List<String> a = new ArrayList<>();
        final List<String> b = new ArrayList<>();
        final List<String> rulesA6 = new ArrayList<>();
        final List<String> rulesB6 = new ArrayList<>();
        for (int i = 0; i < clients.size(); i++)
        {
            final InetAddress client = clients.get(i);
            final int table = 100 + i;
            final Firewall inbound = sandwich.firewall(in.firewall(i));
            final Firewall outbound = sandwich.firewall(out.firewall(i));
            final boolean ipv4 = client instanceof Inet4Address;
            (ipv4 ? a : rulesA6).add("rule add from " + client.getHostAddress() + " table " + table);
            a.add("route add " + sandwich.service(client, PORT).getAddress().getHostAddress() + " via " +
                inbound.outside().address(client).getHostAddress() + " table " + table);
            a.add("route add " + (ipv4 ? FirewallSandwich.INSIDE_NETWORK_V4 :
                FirewallSandwich.INSIDE_NETWORK_V6) + " via " + inbound.outside().address(client).getHostAddress() +
                " table " + table);
            (ipv4 ? b : rulesB6).add("rule add to " + client.getHostAddress() + " table " + table);
            b.add("route add default via " + outbound.inside().address(client).getHostAddress() + " table " + table);
        }
        b.add("route add " + sandwich.vip4().getHostAddress() + " via " + sandwich.server(1).ipv4().getHostAddress());
        if (sandwich.ipv6())
        {
            b.add("route add " + sandwich.vip6().getHostAddress() + " via " +
                sandwich.server(1).ipv6().getHostAddress());
        }
        Netns.ipBatch(lbA, a);
        Netns.ipBatch(lbB, b);
        Netns.ipBatch6(lbA, rulesA6);
        Netns.ipBatch6(lbB, rulesB6);
    }
}
