package io.jvs.nativebindings.bpf;

/**
 * The verdicts an XDP program returns ({@code enum xdp_action}).
 */
public final class XdpAction
{
    public static final int ABORTED = 0;
    public static final int DROP = 1;
    /** Hand the packet to the kernel's stack, as if no program were attached. */
    public static final int PASS = 2;
    public static final int TX = 3;
    public static final int REDIRECT = 4;

    private XdpAction()
    {
    }

    /**
     * @return "XDP_PASS" and so on, for messages.
     */
    public static String name(final int action)
    {
        return switch (action)
        {
            case ABORTED -> "XDP_ABORTED";
            case DROP -> "XDP_DROP";
            case PASS -> "XDP_PASS";
            case TX -> "XDP_TX";
            case REDIRECT -> "XDP_REDIRECT";
            default -> "action " + action;
        };
    }
}
