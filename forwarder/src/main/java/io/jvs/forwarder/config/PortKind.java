package io.jvs.forwarder.config;

/**
 * How the daemon opens an interface: the {@code port} option of an {@code interface} statement.
 */
public enum PortKind
{
    /** AF_XDP sockets fed by an XDP program: the fast path, needs a driver with XDP (or generic XDP). */
    AFXDP("afxdp"),
    /** AF_PACKET rings: works on every device, slower; the XDP options do not apply. */
    AFPACKET("afpacket");

    private final String word;

    PortKind(final String word)
    {
        this.word = word;
    }

    /**
     * @return the word the configuration language uses for it.
     */
    public String word()
    {
        return word;
    }
}
