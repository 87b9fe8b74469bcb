package io.jvs.core.packet;

/**
 * A packet's fate, packed in one int, one field of a frame's record in the burst:
 * {@code kind | egress port << 8 | drop reason << 16}.
 */
public final class Verdict
{
    /** Send the (rewritten) frame out of a port. */
    public static final int TRANSMIT = 1;
    /** Hand the frame to the host's own network stack unchanged. */
    public static final int PASS = 2;
    /** Discard the frame; the reason is counted. */
    public static final int DROP = 3;

    private static final int KIND_MASK = 0xFF;

    private Verdict()
    {
    }

    /**
     * @param port the egress port index, 0..255.
     * @return the verdict.
     */
    public static int transmit(final int port)
    {
        return TRANSMIT | (port << 8);
    }

    public static int pass()
    {
        return PASS;
    }

    public static int drop(final DropReason reason)
    {
        return DROP | (reason.id() << 16);
    }

    public static int kind(final int verdict)
    {
        return verdict & KIND_MASK;
    }

    public static int port(final int verdict)
    {
        return (verdict >>> 8) & 0xFF;
    }

    /**
     * @return the drop reason's {@link DropReason#id} (meaningful for DROP only).
     */
    public static int reason(final int verdict)
    {
        return verdict >>> 16;
    }

    /**
     * @return the verdict as text, e.g. "transmit:1", "pass", "drop:truncated".
     */
    public static String toString(final int verdict)
    {
        return switch (kind(verdict))
        {
            case TRANSMIT -> "transmit:" + port(verdict);
            case PASS -> "pass";
            case DROP -> "drop:" + DropReason.of(reason(verdict)).label();
            default -> "unknown:" + verdict;
        };
    }
}
