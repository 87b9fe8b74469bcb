package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

import io.jvs.nativebindings.testing.TestNetwork;

/**
 * What the system tests' topologies ({@link LbTopology}, {@link FirewallSandwich}) share; each builds its own
 * shape from it. Namespaces of one {@link TestNetwork}; LANs of IPv4 /24s with, optionally, IPv6 /64s beside
 * them (a host has the same number in both, in hex for IPv6); a client device with many addresses; servers with
 * one device each, optionally holding the VIP on {@code lo}; and closing what was {@link #register registered}
 * before the namespaces go, also when a test fails (a shutdown hook of {@link TestNetwork} covers a JVM that
 * dies).
 */
abstract class Topology implements AutoCloseable
{
    private final String what;
    private final TestNetwork network;
    private final boolean ipv6;
    private final Inet4Address vip4;
    private final Inet6Address vip6;
    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();
    private final List<Inet4Address> clientAddresses4 = new ArrayList<>();
    private final List<Inet6Address> clientAddresses6 = new ArrayList<>();
    private final List<Host> servers = new ArrayList<>();
    private NetInterface client;

    /**
     * @param what what it is, for the message of a failed close ("topology"...).
     * @param tag  a short word naming the test, for the namespaces' names.
     */
    Topology(final String what, final String tag, final boolean ipv6, final Inet4Address vip4,
        final Inet6Address vip6)
    {
        this.what = what;
        this.network = TestNetwork.create(tag);
        this.ipv6 = ipv6;
        this.vip4 = vip4;
        this.vip6 = vip6;
    }

    /** Runs {@code create} on the new {@code topology}; on any failure removes what it made and throws. */
    static <T extends Topology> T build(final T topology, final Consumer<? super T> create)
    {
        try
        {
            create.accept(topology);
            return topology;
        }
        catch (final RuntimeException | Error ex)
        {
            topology.close();
            throw ex;
        }
    }

    /** @return whether the servers hold the VIPs on {@code lo} (and their UDP servers answer on them). */
    abstract boolean serversHoldVip();

    /** Every namespace's {@link Wiring#baseSysctls}, IPv6 off in the {@code switches}. */
    final void baseSysctls(final Set<String> switches)
    {
        for (final String namespace : network.namespaces())
        {
            Wiring.baseSysctls(namespace, ipv6 && !switches.contains(namespace));
        }
    }

    /** Waits for every namespace's addresses ({@link Netns#awaitReady}), IPv6 off in the {@code switches}. */
    final void awaitReady(final Set<String> switches)
    {
        for (final String namespace : network.namespaces())
        {
            Netns.awaitReady(namespace, ipv6 && !switches.contains(namespace));
        }
    }

    /** Never answers ARP for the VIP on {@code lo}, never sources ARP from it (the IPVS DR/TUN set-up). */
    static void ignoreArpForLo(final String namespace)
    {
        Netns.sysctl(namespace, "net.ipv4.conf.all.arp_ignore", "1", "net.ipv4.conf.all.arp_announce", "2");
    }

    /** @return the commands that put the VIPs on {@code lo}. */
    final List<String> vipOnLo()
    {
        final List<String> commands = new ArrayList<>();
        commands.add("addr add " + vip4.getHostAddress() + "/32 dev lo");
        if (ipv6)
        {
            commands.add("addr add " + vip6.getHostAddress() + "/128 dev lo nodad");
        }
        return commands;
    }

    /** @return the commands that give {@code device} both families' address of {@code host} on a LAN, and up. */
    final List<String> addresses(final String device, final String v4Prefix, final String v6Prefix, final int host)
    {
        return Wiring.addresses(device, v4Prefix + host + "/24", ipv6 ? v6Prefix + hostV6(host) + "/64" : null);
    }

    /**
     * @param v4Destination e.g. "default" or "10.3.0.0/24".
     * @param v6Destination its IPv6 counterpart (used only with IPv6).
     * @return the routes to them via {@code host} of a LAN.
     */
    final List<String> routes(final String v4Destination, final String v6Destination, final String v4Prefix,
        final String v6Prefix, final int host)
    {
        final List<String> commands = new ArrayList<>();
        commands.add("route add " + v4Destination + " via " + v4Prefix + host);
        if (ipv6)
        {
            commands.add("route add " + v6Destination + " via " + v6Prefix + hostV6(host));
        }
        return commands;
    }

    /** @return the default routes via {@code host} of a LAN. */
    final List<String> defaultRoutes(final String v4Prefix, final String v6Prefix, final int host)
    {
        return routes("default", "default", v4Prefix, v6Prefix, host);
    }

    /** @return the routes to the VIPs via {@code host} of a LAN. */
    final List<String> vipRoutes(final String v4Prefix, final String v6Prefix, final int host)
    {
        return routes(vip4.getHostAddress() + "/32", vip6.getHostAddress() + "/128", v4Prefix, v6Prefix, host);
    }

    /**
     * Notes {@code count} client addresses, hosts {@code firstHost} up of a LAN.
     *
     * @return the commands that give them to {@code device} and bring it up.
     */
    final List<String> clientAddresses(final String device, final String v4Prefix, final String v6Prefix,
        final int firstHost, final int count)
    {
        final List<String> commands = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final int host = firstHost + i;
            clientAddresses4.add(v4(v4Prefix + host));
            commands.add("addr add " + v4Prefix + host + "/24 dev " + device);
            if (ipv6)
            {
                clientAddresses6.add(v6(v6Prefix + hostV6(host)));
                commands.add("addr add " + v6Prefix + hostV6(host) + "/64 dev " + device + " nodad");
            }
        }
        commands.add("link set dev " + device + " up");
        return commands;
    }

    /** Reads the client's device, with its first addresses. */
    final void readClient(final String namespace, final String device)
    {
        client = NetInterface.read(namespace, device, clientAddresses4.getFirst(),
            ipv6 ? clientAddresses6.getFirst() : null);
    }

    /** Reads a server's device, host {@code host} of a LAN, and adds the server. */
    final Host addServer(final String name, final String namespace, final String device, final String v4Prefix,
        final String v6Prefix, final int host)
    {
        final Host server = new Host(servers.size() + 1, name, namespace, nic(namespace, device, v4Prefix, v6Prefix,
            host));
        servers.add(server);
        return server;
    }

    /** @return the device, host {@code host} of a LAN, as the namespace has it. */
    final NetInterface nic(final String namespace, final String device, final String v4Prefix,
        final String v6Prefix, final int host)
    {
        return NetInterface.read(namespace, device, v4(v4Prefix + host), ipv6 ? v6(v6Prefix + hostV6(host)) : null);
    }

    private static String hostV6(final int host)
    {
        return Integer.toHexString(host);
    }

    /**
     * Starts a {@link TcpDigestServer} on every server, on all its addresses (the VIP too when it holds it),
     * answering as the server's name; they are closed with the topology.
     *
     * @return them, in the servers' order.
     */
    public List<TcpDigestServer> startTcpServers(final int port, final boolean echo)
    {
        final List<TcpDigestServer> started = new ArrayList<>();
        for (final Host server : servers)
        {
            started.add(register(TcpDigestServer.start(server.namespace(), server.name(), port, echo)));
        }
        return started;
    }

    /**
     * Starts a {@link UdpDigestServer} on every server, on its own addresses and, when it holds them, the VIPs;
     * closed with the topology.
     */
    public List<UdpDigestServer> startUdpServers(final int port)
    {
        final List<UdpDigestServer> started = new ArrayList<>();
        for (final Host server : servers)
        {
            final List<InetSocketAddress> addresses = new ArrayList<>();
            addresses.add(new InetSocketAddress(server.ipv4(), port));
            if (ipv6)
            {
                addresses.add(new InetSocketAddress(server.ipv6(), port));
            }
            if (serversHoldVip())
            {
                addresses.add(new InetSocketAddress(vip4, port));
                if (ipv6)
                {
                    addresses.add(new InetSocketAddress(vip6, port));
                }
            }
            started.add(register(UdpDigestServer.start(server.namespace(), server.name(), addresses)));
        }
        return started;
    }

    /**
     * Closes {@code closeable} when the topology closes (before the namespaces go), latest first.
     *
     * @return it.
     */
    public synchronized <T extends AutoCloseable> T register(final T closeable)
    {
        closeables.push(closeable);
        return closeable;
    }

    /** @return what was registered of {@code type} and is not closed yet, the first registered first. */
    final synchronized <T> List<T> registered(final Class<T> type)
    {
        return closeables.stream().filter(type::isInstance).map(type::cast).toList().reversed();
    }

    /** Runs a command in a namespace and fails with its output if it fails; returns its output. */
    public String inNamespace(final String namespace, final String... command)
    {
        return network.inNamespace(namespace, command);
    }

    /** Runs code on a thread inside a namespace ({@link TestNetwork#callIn}). */
    public static <T> T callIn(final String namespace, final Callable<T> body)
    {
        return TestNetwork.callIn(namespace, body);
    }

    public TestNetwork network()
    {
        return network;
    }

    public boolean ipv6()
    {
        return ipv6;
    }

    /** @return the client's device, with its first addresses. */
    public NetInterface client()
    {
        return client;
    }

    /** @return every client address, the first host up. */
    public List<Inet4Address> clientAddresses4()
    {
        return List.copyOf(clientAddresses4);
    }

    /** @return every client IPv6 address, the first host up; empty without IPv6. */
    public List<Inet6Address> clientAddresses6()
    {
        return List.copyOf(clientAddresses6);
    }

    /** @return the servers, the first ({@code rs1}, {@code in1}) first. */
    public List<Host> servers()
    {
        return List.copyOf(servers);
    }

    /** @param index 1 to N. */
    public Host server(final int index)
    {
        return servers.get(index - 1);
    }

    public Inet4Address vip4()
    {
        return vip4;
    }

    public Inet6Address vip6()
    {
        return vip6;
    }

    /** @return the VIP of {@code like}'s family and {@code port}. */
    public InetSocketAddress service(final InetAddress like, final int port)
    {
        return new InetSocketAddress(like instanceof Inet4Address ? vip4 : vip6, port);
    }

    /** Closes what was registered, latest first, then removes every namespace. */
    @Override
    public void close()
    {
        final List<Throwable> failures = new ArrayList<>();
        synchronized (this)
        {
            while (!closeables.isEmpty())
            {
                try
                {
                    closeables.pop().close();
                }
                catch (final Exception ex)
                {
                    failures.add(ex);
                }
            }
        }
        network.close();
        if (!failures.isEmpty())
        {
            final IllegalStateException failure = new IllegalStateException("closing the " + what + " failed");
            failures.forEach(failure::addSuppressed);
            throw failure;
        }
    }

    static Inet4Address v4(final String text)
    {
        try
        {
            return (Inet4Address)InetAddress.getByName(text);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("not an IPv4 address: " + text, ex);
        }
    }

    static Inet6Address v6(final String text)
    {
        try
        {
            return (Inet6Address)InetAddress.getByName(text);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("not an IPv6 address: " + text, ex);
        }
    }
}
