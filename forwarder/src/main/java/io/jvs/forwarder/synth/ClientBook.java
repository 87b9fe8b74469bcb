package io.jvs.forwarder.synth;

/**
 * What each client is: its address family, its VLAN tag and the next ephemeral port its stack hands out.
 * Family and tag are functions of the seed and the client's number, so a client keeps them for the whole
 * trace (a client's frames always arrive on the same VLAN) without a table of them.
 */
final class ClientBook
{
    /** Linux's default ip_local_port_range. */
    static final int FIRST_EPHEMERAL_PORT = 32_768;
    static final int LAST_EPHEMERAL_PORT = 60_999;

    private static final long FAMILY_SALT = 0x1F6_5A17L;
    private static final long VLAN_SALT = 0x7A6_0000L;
    private static final long PORT_SALT = 0x90_27L;
    private static final int EPHEMERAL_PORTS = LAST_EPHEMERAL_PORT - FIRST_EPHEMERAL_PORT + 1;

    private final long seed;
    private final double ipv6Share;
    private final double vlanShare;
    /** The next port to try per client, 0 before its first flow. */
    private final char[] nextPort;
    private final ActivePorts active;

    ClientBook(final SynthSettings settings)
    {
        this.seed = settings.seed();
        this.ipv6Share = settings.ipv6Share();
        this.vlanShare = settings.vlanShare();
        this.nextPort = new char[settings.clients()];
        this.active = new ActivePorts(settings.concurrentFlows());
    }

    boolean isV6(final int client)
    {
        return SplitMix64.unit(seed ^ FAMILY_SALT, client) < ipv6Share;
    }

    /**
     * @return the client's VLAN id, or -1 when its frames are untagged.
     */
    int vlanId(final int client)
    {
        if (SplitMix64.unit(seed ^ VLAN_SALT, client) >= vlanShare)
        {
            return -1;
        }
        return AddressPlan.FIRST_VLAN_ID + (int)((SplitMix64.mix(seed + client) >>> 1) % AddressPlan.VLAN_IDS);
    }

    /**
     * Hands out the client's next free ephemeral port, as a stack does for connect(): in turn from a start
     * the seed picks, skipping ports the client has in use.
     *
     * @return the port, held until {@link #release}.
     */
    int takePort(final int client)
    {
        int port = nextPort[client];
        if (port == 0)
        {
            port = FIRST_EPHEMERAL_PORT +
                (int)((SplitMix64.mix(seed ^ PORT_SALT ^ client) >>> 1) % EPHEMERAL_PORTS);
        }
        while (active.contains(client, port))
        {
            port = port == LAST_EPHEMERAL_PORT ? FIRST_EPHEMERAL_PORT : port + 1;
        }
        active.add(client, port);
        nextPort[client] = (char)(port == LAST_EPHEMERAL_PORT ? FIRST_EPHEMERAL_PORT : port + 1);
        return port;
    }

    void release(final int client, final int port)
    {
        active.remove(client, port);
    }
}
