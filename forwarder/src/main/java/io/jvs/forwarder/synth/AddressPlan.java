package io.jvs.forwarder.synth;

import io.jvs.core.net.IpAddress;

/**
 * The addresses of a synthetic trace, public so that a replay can set up the balancer to match: the link
 * (every frame comes from the router's MAC to the balancer's), the virtual services, the real servers
 * behind them, the clients and the routers that send ICMP errors.
 * <p>
 * Service {@code s} (from 0) is dual-stack: TCP port {@value #TCP_PORT} on {@code 10.0.0.100 + s} and on
 * {@code fd00:6a76::100 + s}; service 0 also has UDP port {@value #UDP_PORT} on both addresses. Its real
 * servers {@code r} (from 0) are {@code 192.168.(10 + s).(1 + r)}, in IPv4 arithmetic (service 246 continues
 * in 192.169.0.x), and {@code fd00:5e::s:(1 + r)}, on the service's ports.
 * Client {@code c} is {@code 100.64.0.0/10} with a scrambled host part, or {@code fd00:c1::/64} with a
 * scrambled interface id, as the seed decides per client.
 */
public final class AddressPlan
{
    /** The source MAC of every frame: the router in front of the balancer, 02:00:00:00:00:fe. */
    public static final long ROUTER_MAC = 0x02_00_00_00_00_FEL;
    /** The destination MAC of every frame: the balancer's client-facing port, 02:00:00:00:00:10. */
    public static final long BALANCER_MAC = 0x02_00_00_00_00_10L;
    public static final int TCP_PORT = 80;
    public static final int UDP_PORT = 53;
    /** The first service's IPv4 virtual address; service s has this plus s. */
    public static final IpAddress FIRST_VIP_V4 = IpAddress.parse("10.0.0.100");
    /** The first service's IPv6 virtual address; service s has this plus s. */
    public static final IpAddress FIRST_VIP_V6 = IpAddress.parse("fd00:6a76::100");
    /** The first real server of service 0; service s starts s * 256 above it. */
    public static final IpAddress FIRST_SERVER_V4 = IpAddress.parse("192.168.10.1");
    /** The /64 of the IPv6 real servers: fd00:5e::s:(1 + r). */
    public static final IpAddress SERVER_PREFIX_V6 = IpAddress.parse("fd00:5e::");
    /** The IPv4 client network, 100.64.0.0/10 (RFC 6598 shared address space). */
    public static final IpAddress CLIENT_NETWORK_V4 = IpAddress.parse("100.64.0.0");
    /** The IPv6 client /64. */
    public static final IpAddress CLIENT_PREFIX_V6 = IpAddress.parse("fd00:c1::");
    /** The router on the clients' IPv4 path that reports fragmentation-needed (RFC 2544 benchmark space). */
    public static final IpAddress PATH_ROUTER_V4 = IpAddress.parse("198.18.0.1");
    /** The router on the clients' IPv6 path that reports packet-too-big. */
    public static final IpAddress PATH_ROUTER_V6 = IpAddress.parse("fd00:ee::1");
    /** Tagged clients use VLAN ids from this one up, {@value #VLAN_IDS} of them. */
    public static final int FIRST_VLAN_ID = 100;
    public static final int VLAN_IDS = 8;

    private static final int CLIENT_HOST_BITS = 22;
    /** An odd multiplier: a bijection modulo 2^22, so distinct clients get distinct addresses. */
    private static final int CLIENT_SCRAMBLE = 0x9E37_79B1;
    private static final long CLIENT_ID_SALT = 0x6A76_C11E_27L;

    private AddressPlan()
    {
    }

    /**
     * @return service s's IPv4 virtual address, as an int.
     */
    public static int vipV4(final int service)
    {
        return FIRST_VIP_V4.v4() + service;
    }

    /**
     * @return the low half of service s's IPv6 virtual address (the high half is FIRST_VIP_V6's).
     */
    public static long vipV6Low(final int service)
    {
        return FIRST_VIP_V6.low() + service;
    }

    public static IpAddress vip(final int service, final boolean v6)
    {
        return v6 ? IpAddress.ofV6(FIRST_VIP_V6.high(), vipV6Low(service)) : IpAddress.ofV4(vipV4(service));
    }

    public static IpAddress server(final int service, final int server, final boolean v6)
    {
        return v6 ? IpAddress.ofV6(SERVER_PREFIX_V6.high(), ((long)service << 16) + 1 + server) :
            IpAddress.ofV4(FIRST_SERVER_V4.v4() + (service << 8) + server);
    }

    /**
     * @param client 0..{@link SynthSettings#MAX_CLIENTS} - 1.
     * @return its IPv4 address, never the network's first or last.
     */
    public static int clientV4(final int client)
    {
        final int mask = (1 << CLIENT_HOST_BITS) - 1;
        int host = ((client + 1) * CLIENT_SCRAMBLE) & mask;
        if (host == mask)
        {
            // The one client that would land on the broadcast address takes a host no client has: the image
            // of 2^22 - 1, one past the last client's 2^22 - 2.
            host = ((SynthSettings.MAX_CLIENTS + 1) * CLIENT_SCRAMBLE) & mask;
        }
        return CLIENT_NETWORK_V4.v4() | host;
    }

    /**
     * @return the low half (interface id) of its IPv6 address; never 0, distinct per client.
     */
    public static long clientV6Low(final int client)
    {
        // mix is a bijection, so ids differ; 0 would only come from one input, which a salt moves far away.
        final long id = SplitMix64.mix(client + CLIENT_ID_SALT);
        return id == 0 ? 1 : id;
    }

    public static IpAddress client(final int client, final boolean v6)
    {
        return v6 ? IpAddress.ofV6(CLIENT_PREFIX_V6.high(), clientV6Low(client)) : IpAddress.ofV4(clientV4(client));
    }
}
