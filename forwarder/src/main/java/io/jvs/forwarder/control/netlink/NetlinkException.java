package io.jvs.forwarder.control.netlink;

/**
 * A netlink request that cannot be served, with the errno the kernel would answer it with (positive; the
 * {@code NLMSG_ERROR} reply carries it negated).
 */
public final class NetlinkException extends Exception
{
    private static final long serialVersionUID = 1L;

    private final int errno;

    public NetlinkException(final int errno, final String message)
    {
        super(message);
        this.errno = errno;
    }

    /** @return the positive errno. */
    public int errno()
    {
        return errno;
    }
}
