package io.jvs.core.conn;

/**
 * The real servers' addresses and ports by server slot, so the connection table can recognise a NAT
 * reply by its source without storing the server's address in every entry. Immutable: the control
 * plane builds a new one when servers change.
 */
public final class ServerAddresses
{
    /**
     * A port key's bit ({@link ConnectionTable#portKey}): the connection goes to the port its packets came to,
     * whatever its server's port, as the kernel fixed its {@code cp->dport} when it made it (ip_vs_sched_persist's
     * {@code dport == svc->port && dest->port} test, false for a persistent port-0 or firewall-mark service). The
     * key's low 16 bits are the connection's virtual port.
     */
    public static final int PACKETS_PORT = 1 << 16;
    private static final int PORT_MASK = 0xFFFF;

    private final long[] high;
    private final long[] low;
    private final int[] port;
    private final int[] portBySlotRule;
    private final boolean[] keepsPacketsPort;

    /**
     * @param high  first 64 bits of each slot's address (IPv6), 0 for IPv4.
     * @param low   last 64 bits, or the IPv4 address in the low 32 bits.
     * @param port  each slot's server's own port; 0 means "the virtual port".
     */
    public ServerAddresses(final long[] high, final long[] low, final int[] port)
    {
        this(high, low, port, new boolean[port.length]);
    }

    /**
     * @param high              first 64 bits of each slot's address (IPv6), 0 for IPv4.
     * @param low               last 64 bits, or the IPv4 address in the low 32 bits.
     * @param port              each slot's server's own port; 0 means "the virtual port".
     * @param keepsPacketsPort  whether the service each slot's server belongs to sends its new connections to the
     *                          packet's own port ({@link #PACKETS_PORT}): {@link #portBySlotRule}'s rule.
     */
    public ServerAddresses(final long[] high, final long[] low, final int[] port, final boolean[] keepsPacketsPort)
    {
        if (high.length != low.length || low.length != port.length || port.length != keepsPacketsPort.length)
        {
            throw new IllegalArgumentException("address arrays differ in length");
        }
        this.high = high;
        this.low = low;
        this.port = port;
        this.keepsPacketsPort = keepsPacketsPort.clone();
        this.portBySlotRule = new int[port.length];
        for (int slot = 0; slot < port.length; slot++)
        {
            portBySlotRule[slot] = keepsPacketsPort[slot] ? 0 : port[slot];
        }
    }

    /**
     * @return the number of slots.
     */
    public int slots()
    {
        return port.length;
    }

    /**
     * @param slot        a server slot.
     * @param high        the reply's source address, first 64 bits.
     * @param low         its last 64 bits.
     * @param sourcePort  the reply's source port.
     * @param portKey     the connection's {@link ConnectionTable#portKey}.
     * @return true when the slot's server sent it.
     */
    public boolean matches(final int slot, final long high, final long low, final int sourcePort, final int portKey)
    {
        if (slot <= 0 || slot >= port.length)
        {
            return false;
        }
        return port(slot, portKey) == sourcePort && this.low[slot] == low && this.high[slot] == high;
    }

    public long high(final int slot)
    {
        return high[slot];
    }

    public long low(final int slot)
    {
        return low[slot];
    }

    /**
     * @param slot    a server slot.
     * @param portKey a connection's {@link ConnectionTable#portKey}, or a bare virtual port for a connection that
     *                takes its server's port.
     * @return the port the connection's packets go to: the virtual port when the key says so or when the server has
     *         no port of its own (ip_vs_schedule's {@code dest->port ? dest->port : vport}), else the server's.
     */
    public int port(final int slot, final int portKey)
    {
        // Without a branch: the key's bit (bit 16 of a key whose port is below 2^16) clears the server's port.
        final int own = port[slot] & ~-(portKey >>> 16);
        return own != 0 ? own : portKey & PORT_MASK;
    }

    /**
     * @return whether the service of the slot's server sends its new connections to the packet's own port.
     */
    public boolean keepsPacketsPort(final int slot)
    {
        return keepsPacketsPort[slot];
    }

    /**
     * The port of a connection whose {@link #PACKETS_PORT} is what its server's service gives new connections now,
     * without the connection's flags: for the established fast loop, which leaves every other connection (made by
     * another service through a shared template, or before an edit of the service's persistence) to the general path.
     *
     * @param slot        a server slot.
     * @param virtualPort the connection's virtual port.
     * @return the port its packets go to.
     */
    public int portBySlotRule(final int slot, final int virtualPort)
    {
        final int rule = portBySlotRule[slot];
        return rule != 0 ? rule : virtualPort;
    }
}
