package io.jvs.forwarder.port.xdp;

/**
 * An AF_XDP port cannot be opened for a reason the operator can fix (no such interface, interface down),
 * said in plain words. Kernel refusals come as {@link io.jvs.nativebindings.NativeCallException}, which
 * names the call, the errno and, for privileges, the capability.
 */
public final class AfXdpPortException extends RuntimeException
{
    public AfXdpPortException(final String message)
    {
        super(message);
    }
}
