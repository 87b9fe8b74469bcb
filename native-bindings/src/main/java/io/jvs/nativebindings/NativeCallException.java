package io.jvs.nativebindings;

/**
 * A system call that failed on a control path, naming the call, the errno, what it means and, where
 * {@link Errno#hint} knows, what to do about it.
 */
public final class NativeCallException extends RuntimeException
{
    private final String call;
    private final int errno;

    /**
     * @param call    the function, e.g. "mmap", optionally with what it set, e.g. "setsockopt XDP_UMEM_REG".
     * @param errno   the errno it left.
     * @param context what it was asked to do.
     */
    public NativeCallException(final String call, final int errno, final String context)
    {
        super(message(call, errno, context));
        this.call = call;
        this.errno = errno;
    }

    private static String message(final String call, final int errno, final String context)
    {
        final String hint = Errno.hint(call, errno);
        return call + " failed: " + Errno.name(errno) + " (" + Errno.describe(errno) + "), " + context +
            (hint.isEmpty() ? "" : ": " + hint);
    }

    public String call()
    {
        return call;
    }

    public int errno()
    {
        return errno;
    }
}
