package io.jvs.forwarder.port.packet;

/**
 * An AF_PACKET port could not be opened: the message names the interface or the ring setting and says why.
 * Failed system calls arrive as {@link io.jvs.nativebindings.NativeCallException} instead, which names the
 * errno and the missing capability. Thrown on the control path only; the per-burst methods count failures.
 */
public final class AfPacketException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    public AfPacketException(final String message)
    {
        super(message);
    }
}
