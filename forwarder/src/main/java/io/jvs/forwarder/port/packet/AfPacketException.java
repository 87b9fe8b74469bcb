package io.jvs.forwarder.port.packet;

/**
 * An AF_PACKET port could not be opened because of the interface's state (missing, down): the message names it
 * and says what to do. An IllegalStateException, so callers that report bad device state already catch it.
 * Failed system calls arrive as {@link io.jvs.nativebindings.NativeCallException} instead, which names the
 * errno and the missing capability. Thrown on the control path only; the per-burst methods count failures.
 */
public final class AfPacketException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    public AfPacketException(final String message)
    {
        super(message);
    }
}
