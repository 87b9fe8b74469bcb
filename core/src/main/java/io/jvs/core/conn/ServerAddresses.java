package io.jvs.core.conn;

/**
 * The real servers' addresses and ports by server slot, so the connection table can recognise a NAT
 * reply by its source without storing the server's address in every entry. Immutable: the control
 * plane builds a new one when servers change.
 */
public final class ServerAddresses
{
    private final long[] high;
    private final long[] low;
    private final int[] port;

    /**
     * @param high  first 64 bits of each slot's address (IPv6), 0 for IPv4.
     * @param low   last 64 bits, or the IPv4 address in the low 32 bits.
     * @param port  each slot's port; 0 means "the virtual port".
     */
    public ServerAddresses(final long[] high, final long[] low, final int[] port)
    {
        if (high.length != low.length || low.length != port.length)
        {
            throw new IllegalArgumentException("address arrays differ in length");
        }
        this.high = high;
        this.low = low;
        this.port = port;
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
     * @param virtualPort the connection's virtual port (the server's port when it has none of its own).
     * @return true when the slot's server sent it.
     */
    public boolean matches(final int slot, final long high, final long low, final int sourcePort, final int virtualPort)
    {
        if (slot <= 0 || slot >= port.length)
        {
            return false;
        }
        final int serverPort = port[slot] != 0 ? port[slot] : virtualPort;
        return serverPort == sourcePort && this.low[slot] == low && this.high[slot] == high;
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
     * @return the port packets go to: the server's, or the virtual port when the server has none.
     */
    public int port(final int slot, final int virtualPort)
    {
        return port[slot] != 0 ? port[slot] : virtualPort;
    }
}
