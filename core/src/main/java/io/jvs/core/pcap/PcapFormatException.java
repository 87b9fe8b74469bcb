package io.jvs.core.pcap;

import java.io.IOException;
import java.nio.file.Path;

/**
 * {@link PcapReader#open} refuses a file that is not a capture file it can read: the message names the
 * file and what was wrong (for a bad magic number, the four bytes found).
 */
public final class PcapFormatException extends IOException
{
    private static final long serialVersionUID = 1L;

    private final transient Path path;
    private final EndReason reason;

    PcapFormatException(final Path path, final EndReason reason, final String detail)
    {
        super(path + ": " + detail);
        this.path = path;
        this.reason = reason;
    }

    /**
     * @return the file refused.
     */
    public Path path()
    {
        return path;
    }

    /**
     * @return why: {@link EndReason#UNKNOWN_FORMAT}, {@link EndReason#TRUNCATED_HEADER},
     * {@link EndReason#UNSUPPORTED_VERSION} or {@link EndReason#BAD_BLOCK_LENGTH} (first pcapng block).
     */
    public EndReason reason()
    {
        return reason;
    }
}
