package io.jvs.nativebindings.netlink;

/**
 * A netlink message that does not hold together: shorter than its header says, an attribute running past its
 * message, a fixed-size attribute of the wrong size. The message names what was wrong and where.
 */
public final class NetlinkFormatException extends RuntimeException
{
    /**
     * @param message what was wrong, in which message or attribute, at which offset.
     */
    public NetlinkFormatException(final String message)
    {
        super(message);
    }
}
