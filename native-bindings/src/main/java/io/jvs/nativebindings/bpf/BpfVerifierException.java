package io.jvs.nativebindings.bpf;

import io.jvs.nativebindings.Errno;

/**
 * The kernel refused to load a program. The message carries the verifier's log (its tail when it is
 * long: the reason is in the last lines); {@link #verifierLog()} has all of it.
 */
public final class BpfVerifierException extends RuntimeException
{
    private static final int MESSAGE_LOG_CHARS = 16 * 1024;

    private final int errno;
    private final String verifierLog;

    /**
     * @param program     what was loaded, e.g. "XDP program jvs_vips (41 instructions)".
     * @param errno       the load's errno (EACCES for a program the verifier rejects, EINVAL for a malformed one).
     * @param verifierLog what the verifier wrote with log level 1.
     */
    public BpfVerifierException(final String program, final int errno, final String verifierLog)
    {
        super("bpf(BPF_PROG_LOAD) refused " + program + ": " + Errno.name(errno) + " (" + Errno.describe(errno) +
            ")\n" + describeLog(verifierLog));
        this.errno = errno;
        this.verifierLog = verifierLog;
    }

    public int errno()
    {
        return errno;
    }

    public String verifierLog()
    {
        return verifierLog;
    }

    private static String describeLog(final String log)
    {
        if (log.isBlank())
        {
            return "the verifier wrote no log: the request itself was malformed (program type, name, flags)";
        }
        if (log.length() <= MESSAGE_LOG_CHARS)
        {
            return "verifier log:\n" + log;
        }
        return "verifier log (last " + MESSAGE_LOG_CHARS + " of " + log.length() + " characters):\n..." +
            log.substring(log.length() - MESSAGE_LOG_CHARS);
    }
}
