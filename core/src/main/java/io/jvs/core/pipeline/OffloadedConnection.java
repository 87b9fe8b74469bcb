package io.jvs.core.pipeline;

/**
 * What the frames of an offered connection ({@link ConnectionOffload#offer}) become, in the pipeline's own terms:
 * the client's frames to the VIP leave towards the server as {@link Rewriter}'s natInbound or directRoute makes them,
 * a NAT server's replies towards the client as its natOutbound does. IPv4 addresses as {@code (int)} of the
 * connection table's low halves (the address's big-endian value), MACs in their low 48 bits, MTUs the longest IP
 * packet that leaves without the pipeline's frag-needed or fragmentation. One instance per pipeline, refilled for
 * each offer.
 */
public final class OffloadedConnection
{
    int protocol;
    boolean nat;
    int client;
    int clientPort;
    int virtual;
    int virtualPort;
    int server;
    int serverPort;
    int serverEgress;
    long serverMac;
    long serverSourceMac;
    int serverMtu;
    int clientEgress;
    long clientMac;
    long clientSourceMac;
    int clientMtu;

    /** @return IPPROTO_TCP or IPPROTO_UDP. */
    public int protocol()
    {
        return protocol;
    }

    /** @return true for NAT (both directions pass), false for direct routing (the client's frames only). */
    public boolean nat()
    {
        return nat;
    }

    public int client()
    {
        return client;
    }

    public int clientPort()
    {
        return clientPort;
    }

    public int virtual()
    {
        return virtual;
    }

    public int virtualPort()
    {
        return virtualPort;
    }

    /** @return the real server's address (the VIP for direct routing, which leaves it in the packet). */
    public int server()
    {
        return server;
    }

    /** @return the real server's port for this connection (the virtual port for direct routing). */
    public int serverPort()
    {
        return serverPort;
    }

    /** @return the port the client's frames leave by. */
    public int serverEgress()
    {
        return serverEgress;
    }

    public long serverMac()
    {
        return serverMac;
    }

    /** @return the MAC of {@link #serverEgress}, the frames' source. */
    public long serverSourceMac()
    {
        return serverSourceMac;
    }

    public int serverMtu()
    {
        return serverMtu;
    }

    /** @return the port a NAT server's replies leave by. */
    public int clientEgress()
    {
        return clientEgress;
    }

    /** @return the client's next hop's MAC. */
    public long clientMac()
    {
        return clientMac;
    }

    public long clientSourceMac()
    {
        return clientSourceMac;
    }

    public int clientMtu()
    {
        return clientMtu;
    }
}
