package io.jvs.forwarder.control;

/**
 * A control message that does not follow {@link ControlProtocol}: the message names what is wrong.
 */
public final class ControlProtocolException extends Exception
{
    private static final long serialVersionUID = 1L;

    public ControlProtocolException(final String message)
    {
        super(message);
    }
}
