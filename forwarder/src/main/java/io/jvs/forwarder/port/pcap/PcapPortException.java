package io.jvs.forwarder.port.pcap;

/**
 * A pcap port could not be opened or configured: the message names the file, interface or filter expression
 * and says why (libpcap's own words included). Thrown on the control path only; the per-burst methods count
 * failures instead.
 */
public final class PcapPortException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public PcapPortException(final String message)
    {
        super(message);
    }

    public PcapPortException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
