package io.jvs.forwarder.config;

/**
 * Whether established connections are forwarded by the AF_XDP ports' XDP program rather than by the workers: the
 * {@code offload} statement. It needs every interface on AF_XDP and egress devices that take redirected frames.
 */
public enum OffloadMode
{
    /** Wherever it can: every interface on AF_XDP; a port whose device takes no redirected frames is left out. */
    AUTO("auto"),
    /** As {@code auto}, and what keeps it from a port, or from the whole box, is a warning. */
    ON("on"),
    /** Never: every frame through the workers. */
    OFF("off");

    private final String word;

    OffloadMode(final String word)
    {
        this.word = word;
    }

    /**
     * @return the word the configuration language uses for it.
     */
    public String word()
    {
        return word;
    }
}
