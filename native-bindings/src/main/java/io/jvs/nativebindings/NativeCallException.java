package io.jvs.nativebindings;

/**
 * A system call that failed on a control path, naming the call, the errno and what it means.
 */
public final class NativeCallException extends RuntimeException
{
    private final String call;
    private final int errno;

    /**
     * @param call    the function, e.g. "mmap".
     * @param errno   the errno it left.
     * @param context what it was asked to do.
     */
    public NativeCallException(final String call, final int errno, final String context)
    {
        super(call + " failed: " + Errno.name(errno) + " (" + Errno.describe(errno) + "), " + context);
        this.call = call;
        this.errno = errno;
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
